package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// harnessVerb parses the options o of the harness verb name (parseOptions)
// and runs it with the harness options of the pinned version, scratch
// space in out/<name>, on the applied work tree.
func (e *env) harnessVerb(ctx context.Context, name, synopsis string, args []string, o options, verbose *bool, run func(harness.Options) error) error {
	if err := e.parseOptions(name, synopsis, args, o); err != nil {
		return err
	}
	if err := e.Tree.Require(ctx, worktree.Need{Base: true}); err != nil {
		return err
	}
	p, err := e.Pin()
	if err != nil {
		return err
	}
	return run(e.Harness(p, name, *verbose))
}
