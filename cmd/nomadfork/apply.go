package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runApply(ctx context.Context, e *env, args []string) error {
	var o worktree.ApplyOptions
	if err := e.parseOptions("apply", "[-force | -continue | -abort] [-allow-empty]", args, &o); err != nil {
		return err
	}
	return e.printed(e.Apply(ctx, o))
}

// resumeApply is apply's resume rule: apply again, with -continue or
// -force as given (interrupted before it discarded the work tree's
// changes, a plain apply would refuse them).
func resumeApply(ctx context.Context, e *env, args []string) (string, bool) {
	has := given(args, "continue", "force")
	switch {
	case has["continue"]:
		return e.command(hint.Run("apply", "-continue")), true
	case has["force"]:
		return e.command(hint.Run("apply", "-force")), true
	}
	return e.command(hint.Run("apply")), true
}

func init() { register(command{Name: "apply", Run: runApply, Resume: resumeApply, Lock: true}) }
