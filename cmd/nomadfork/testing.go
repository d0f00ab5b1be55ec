package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// harnessOptions are the files and directories of the harness.
func (e *env) harnessOptions(p *pin.Pin, scratch string, verbose bool) harness.Options {
	return harness.LineOptions(e.tree, p, e.line.Dir, e.line.Baselines, e.sim, e.out, scratch, verbose, e.stdout)
}

// harnessVerb parses the options o of the harness verb name (parseOptions)
// and returns the harness options of the pinned version, scratch space in
// out/<name>, on the applied work tree.
func (e *env) harnessVerb(ctx context.Context, name, synopsis string, args []string, o options, verbose *bool) (harness.Options, error) {
	if err := e.parseOptions(name, synopsis, args, o); err != nil {
		return harness.Options{}, err
	}
	if _, err := e.requireWorkTree(ctx); err != nil {
		return harness.Options{}, err
	}
	p, err := e.loadPin()
	if err != nil {
		return harness.Options{}, err
	}
	return e.harnessOptions(p, name, *verbose), nil
}
