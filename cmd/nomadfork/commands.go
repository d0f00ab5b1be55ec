package main

import (
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// A command is a verb of nomadfork. Each verb's file registers its
// command in an init func; usage lists them in verbOrder. Its long help
// is help/<name>.txt.
type command = cli.Command[*env]

// verbOrder is the order in which usage lists the visible verbs.
var verbOrder = []string{
	"apply", "extract", "check", "build", "release", "test", "baseline", "contract", "revdeps",
	"rebase", "drop", "status", "export", "sandbox", "bench", "faults", "vulns", "scale",
}

// register adds c, with its long help, to the command table.
func register(c command) {
	c.Help = helpOf(c.Name)
	prog.Register(c)
}

// visible returns the commands usage lists, in verbOrder.
func visible() []command {
	var out []command
	for _, name := range verbOrder {
		if c := prog.Lookup(name); c != nil && !c.Hidden() {
			out = append(out, *c)
		}
	}
	return out
}

// usage is help/usage.txt with the visible commands and their summaries.
func usage() string {
	var b strings.Builder
	for _, c := range visible() {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.Name, c.Summary)
	}
	return strings.Replace(helpOf("usage"), "{Commands}", b.String(), 1)
}
