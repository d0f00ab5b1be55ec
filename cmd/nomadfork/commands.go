package main

import (
	"embed"
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// A command is a verb of nomadfork. Each verb's file registers its
// command in an init func; usage lists them in verbOrder. Its summary and
// long help are help/<name>.txt.
type command = cli.Command[*env]

// verbOrder is the order in which usage lists the visible verbs.
var verbOrder = []string{
	"apply", "extract", "check", "build", "release", "test", "baseline", "contract", "revdeps",
	"rebase", "drop", "status", "export", "sandbox", "bench", "faults", "vulns", "scale",
}

// helpFiles holds every verb's summary and long help, help/<verb>.txt
// (hidden verbs' too): the first line, a blank line, the help.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpOf returns help/<name>.txt with {RefVersion} standing for
// experiment.RefVersion; "" when there is none.
func helpOf(name string) string {
	b, _ := helpFiles.ReadFile("help/" + name + ".txt")
	return strings.ReplaceAll(string(b), "{RefVersion}", experiment.RefVersion)
}

// register adds cs, with their summaries and long help, to the command
// table.
func register(cs ...command) {
	for _, c := range cs {
		c.Summary, c.Help, _ = strings.Cut(helpOf(c.Name), "\n\n")
		prog.Register(c)
	}
}

// visible returns the commands usage lists, in verbOrder.
func visible() []command { return prog.Visible(verbOrder) }

// usage is help/usage.txt with the visible commands and their summaries.
func usage() string {
	var b strings.Builder
	for _, c := range visible() {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.Name, c.Summary)
	}
	return strings.Replace(helpOf("usage"), "{Commands}", b.String(), 1)
}
