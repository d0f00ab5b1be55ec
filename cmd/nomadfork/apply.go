package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runApply(ctx context.Context, e *env, args []string) error {
	var o worktree.ApplyOptions
	if err := e.parseOptions("apply", "[-force | -continue | -abort] [-allow-empty]", args, &o); err != nil {
		return err
	}
	return e.printed(e.Apply(ctx, o))
}

func init() { register(command{Name: "apply", Run: runApply, Lock: true}) }
