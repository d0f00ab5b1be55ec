package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
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
	var s *rebase.Session
	if o.Onto != "" {
		if err := e.UseLine(); err != nil {
			return err
		}
		s = e.Session()
	} else {
		var err error
		if s, err = e.ResumeSession(ctx); err != nil {
			return err
		}
	}
	return e.printed(s.Done(s.Run(ctx, o)))
}

// resumeRebase is rebase's resume rule: a rebase in progress continues on
// its line, or an interrupted -abort aborts again.
func resumeRebase(ctx context.Context, e *env, args []string) (string, bool) {
	if !e.Session().Rebaser().InProgress(ctx) {
		return "", false
	}
	if given(args, "abort")["abort"] {
		return e.command(hint.Run("rebase", "-abort").OnLine(e.Line.Name)), true
	}
	return e.command(hint.Run("rebase", "-continue").OnLine(e.Line.Name)), true
}

func init() { register(command{Name: "rebase", Run: runRebase, Resume: resumeRebase, Lock: true}) }
