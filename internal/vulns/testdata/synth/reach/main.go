// Command reach calls the vulnerable function.
package main

import "example.com/vulnlib"

func main() { println(vulnlib.Bad()) }
