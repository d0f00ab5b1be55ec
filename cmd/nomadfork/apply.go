package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runApply(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "apply", "[-force | -continue | -abort] [-allow-empty]")
	force := fs.Bool("force", false, "discard uncommitted changes, unexported commits and a stopped apply or rebase in nomad/")
	cont := fs.Bool("continue", false, "resume a stopped apply after resolving the conflicts and staging them with 'git add'")
	abort := fs.Bool("abort", false, "end a stopped apply, keeping the patches applied so far")
	allowEmpty := fs.Bool("allow-empty", false, "accept an empty or missing patches/ (nomad/ becomes bare upstream)")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if n := count(*force, *cont, *abort); n > 1 {
		return usageError(errors.New("-force, -continue and -abort exclude each other"))
	}
	t := e.tree
	if *abort {
		return t.Apply(ctx, "", nil, worktree.ApplyOptions{Abort: true})
	}
	if *force {
		if err := e.session().Rebaser().AbortStopped(ctx); err != nil {
			return err
		}
	}
	patches, p, base, err := t.SeriesAndBase(ctx, e.line.Dir, e.line.Pin, *allowEmpty)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, worktree.ApplyOptions{Force: *force, Continue: *cont}); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s is upstream %s plus %d patch(es), HEAD %s\n", e.relWorkTree(), p.Version(), len(patches), head)
	return nil
}

func count(bs ...bool) (n int) {
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func init() {
	register(command{Name: "apply", Summary: "download and verify the pinned upstream, make nomad/ and apply patches/", Run: runApply, Lock: true})
}
