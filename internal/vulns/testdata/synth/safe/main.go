// Command safe imports the vulnerable package but calls only its safe
// function.
package main

import "example.com/vulnlib"

func main() { println(vulnlib.Good()) }
