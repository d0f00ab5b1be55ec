package main

import (
	"context"
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

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
	patches, p, base, err := t.SeriesAndBase(ctx, e.Line.Dir, e.Line.Pin, o.AllowEmpty)
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
	fmt.Fprintf(e.Stdout, "%s is upstream %s plus %d patch(es), HEAD %s\n", e.relWorkTree(), p.Version(), len(patches), head)
	return nil
}

func init() { register(command{Name: "apply", Run: runApply, Lock: true}) }
