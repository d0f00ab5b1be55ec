package main

import (
	"context"
	"errors"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// session is the rebase session of the selected line; a line it selects
// (one being made) becomes the env's line.
func (e *env) session() *rebase.Session {
	if e.rebase == nil {
		e.rebase = &rebase.Session{Layout: e.layout, Line: e.line, Tree: e.tree, Changelog: e.log, Log: e.stdout,
			NewTree: func(ln line.Line) *worktree.Tree {
				e.setLine(ln)
				e.rebasing = ln.Name
				return e.tree
			}}
	}
	return e.rebase
}

// useRebasingLine selects the line of a rebase in progress (see
// rebase.Session.Resume).
func (e *env) useRebasingLine(ctx context.Context) error {
	err := e.session().Resume(ctx, e.lineName)
	if errors.Is(err, line.ErrUnknown) {
		return usageError(err)
	}
	return err
}

func runRebase(ctx context.Context, e *env, args []string) error {
	var o rebase.Options
	fs := newFlags(e, "rebase", "-onto <version> [-new-line] | -continue | -abort")
	o.Flags(fs)
	if err := cli.Parse(fs, args, 0); err != nil {
		return err
	}
	if err := o.Check(); err != nil {
		return err
	}
	if o.Onto != "" {
		if err := e.useLine(); err != nil {
			return err
		}
	} else if err := e.useRebasingLine(ctx); err != nil {
		return err
	}
	e.rebasing = e.line.Name
	s := e.session()
	return e.printed(s.Done(s.Run(ctx, o)))
}

func init() { register(command{Name: "rebase", Run: runRebase, Lock: true}) }
