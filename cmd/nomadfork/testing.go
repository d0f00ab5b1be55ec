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

// harnessOn requires the work tree and returns the harness options of the
// pinned version.
func (e *env) harnessOn(ctx context.Context, scratch string, verbose bool) (harness.Options, error) {
	if _, err := e.requireWorkTree(ctx); err != nil {
		return harness.Options{}, err
	}
	p, err := e.loadPin()
	if err != nil {
		return harness.Options{}, err
	}
	return e.harnessOptions(p, scratch, verbose), nil
}
