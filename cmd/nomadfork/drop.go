package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
)

func runDrop(ctx context.Context, e *env, args []string) error {
	var o rebase.DropOptions
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>] | <patch> -verify -pr <url>")
	o.Flags(fs)
	if err := o.Parse(fs, args); err != nil {
		return err
	}
	if o.Verify {
		return dropVerified(ctx, e, o.Patch, o.PR)
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

// dropVerified drops the patch a stopped rebase of the line conflicts at,
// once its own tests prove that the rebase's target carries it.
func dropVerified(ctx context.Context, e *env, name, pr string) error {
	if err := e.UseRebasingLine(ctx); err != nil {
		return err
	}
	s := e.Session()
	return e.printed(s.Done(s.DropProven(ctx, name, pr, func(target *pin.Pin, targetLine line.Line) rebase.Prover {
		o := e.Harness(target, "drop-verify", false)
		o.Plain = harness.PlainBaseline(targetLine.Baselines, target.Version())
		return func(ctx context.Context, base string, p series.Patch) (string, error) {
			return harness.ProveUpstream(ctx, o, base, p)
		}
	})))
}

func init() { register(command{Name: "drop", Run: runDrop, Lock: true}) }
