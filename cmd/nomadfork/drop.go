package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
)

func runDrop(ctx context.Context, e *env, args []string) error {
	var o rebase.DropOptions
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>] | <patch> -verify -pr <url>")
	dropFlags(fs, &o)
	if err := o.Parse(fs, args); err != nil {
		return err
	}
	if o.Verify {
		// Drops the patch the stopped rebase conflicts at, once its own
		// tests prove that the rebase's target carries it.
		s, err := e.ResumeSession(ctx)
		if err != nil {
			return err
		}
		return e.printed(s.Done(s.DropProven(ctx, o.Patch, o.PR, e.Prover)))
	}
	if err := e.UseLine(); err != nil {
		return err
	}
	if err := o.CheckVersion(); err != nil {
		return err
	}
	cur, err := e.Pin()
	if err != nil {
		return err
	}
	d, err := rebase.DropInTree(ctx, e.Tree, cur, e.Line.Dir, o.Patch, o.Applied, o.PR)
	if err != nil {
		return err
	}
	return e.printed(d.Summary(), nil)
}

// resumeDrop is drop's resume rule: a drop interrupted while it applied
// its edit to the work tree is finished by apply.
func resumeDrop(ctx context.Context, e *env, args []string) (string, bool) {
	if st, err := e.Tree.LoadState(ctx); err == nil && len(st.Pending) > 0 {
		return e.command(hint.Run("apply")), true
	}
	return "", false
}

// dropFlags declares drop's flags on fs, into o.
func dropFlags(fs *flag.FlagSet, o *rebase.DropOptions) {
	fs.StringVar(&o.Applied, "applied-upstream", "", "the upstream `version` that carries the change")
	fs.StringVar(&o.PR, "pr", "", "the https `url` of the upstream pull request that carries it")
	fs.BoolVar(&o.Verify, "verify", false, "while a rebase of the line is stopped at the patch: prove that the rebase's target carries it (its own tests pass there without its production changes, in the sandbox), drop it and go on with the rebase")
}

func init() { register(command{Name: "drop", Run: runDrop, Resume: resumeDrop, Lock: true}) }
