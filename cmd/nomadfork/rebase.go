package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
)

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
		if err := e.UseLine(); err != nil {
			return err
		}
	} else if err := e.UseRebasingLine(ctx); err != nil {
		return err
	}
	e.Rebasing = e.Line.Name
	s := e.Session()
	return e.printed(s.Done(s.Run(ctx, o)))
}

func init() { register(command{Name: "rebase", Run: runRebase, Lock: true}) }
