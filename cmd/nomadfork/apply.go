package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// runApply makes the line's work tree hold the pinned upstream plus the
// series (worktree.Tree.Apply); -force also aborts a stopped rebase, and
// -abort ends a stopped apply (saying nothing more).
func runApply(ctx context.Context, e *env, args []string) error {
	var o worktree.ApplyOptions
	if err := e.parseOptions("apply", "[-force | -continue | -abort] [-allow-empty]", args, &o); err != nil {
		return err
	}
	t := e.Tree
	if o.Abort {
		return t.Apply(ctx, "", nil, o)
	}
	if o.Force {
		if err := e.Session().Rebaser().AbortStopped(ctx); err != nil {
			return err
		}
	}
	patches, p, base, err := e.SeriesAndBase(ctx, o.AllowEmpty)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, o); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	return e.printed(hint.Sprintf("%s is upstream %s plus %d patch(es), HEAD %s", hint.WorkTree, p.Version(), len(patches), head), nil)
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
