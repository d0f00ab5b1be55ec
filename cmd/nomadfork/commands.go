package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// A command is a verb of nomadfork. Each verb's file registers its
// command in an init func; usage lists them in verbOrder.
type command struct {
	name, summary string
	// help is the long help `nomadfork help <name>` prints below the
	// usage line: help/<name>.txt.
	help string
	run  func(ctx context.Context, env *env, args []string) error
	// lock: the command takes the tool's lock.
	lock bool
	// entry, for a hidden verb, is its whole program: nomadfork runs it
	// before anything else (no flags, no signal handling), as the
	// sandbox's init or an experiment's process inside the sandbox.
	entry func(args []string, stdout, stderr io.Writer) int
}

// hidden reports whether c is an internal entry point, left out of the
// usage and the command reference.
func (c *command) hidden() bool { return c.entry != nil }

// commands is the command table, filled by register.
var commands []command

// verbOrder is the order in which usage lists the visible verbs.
var verbOrder = []string{
	"apply", "extract", "check", "build", "release", "test", "baseline", "contract", "revdeps",
	"rebase", "drop", "status", "export", "sandbox", "bench", "faults", "vulns", "scale",
}

// register adds c to the command table.
func register(c command) {
	if lookup(c.name) != nil {
		panic("nomadfork: command " + c.name + " registered twice")
	}
	c.help = helpOf(c.name)
	commands = append(commands, c)
}

// visible returns the commands usage lists, in verbOrder.
func visible() []command {
	var out []command
	for _, name := range verbOrder {
		if c := lookup(name); c != nil && !c.hidden() {
			out = append(out, *c)
		}
	}
	return out
}

func usage() string {
	var b strings.Builder
	b.WriteString(usageHead)
	for _, c := range visible() {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	return b.String() + usageTail
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}
