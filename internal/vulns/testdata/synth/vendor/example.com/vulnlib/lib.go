// Package vulnlib is a dependency with one vulnerable function (Bad), as
// testdata/db's GO-2099-0001 says.
package vulnlib

// Bad is vulnerable.
func Bad() string { return "bad" }

// Good is not.
func Good() string { return "good" }
