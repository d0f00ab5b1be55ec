package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
)

func runCheck(ctx context.Context, e *env, args []string) error {
	var v check.Verb
	if err := e.parseOptions("check", "[-no-build | -tip-only] [-allow-empty] [-tests [-v]]", args, &v); err != nil {
		return err
	}
	t := e.Tree
	patches, p, base, err := t.SeriesAndBase(ctx, e.Line.Dir, e.Line.Pin, v.AllowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{Repo: t.Repo, Base: base, Scratch: filepath.Join(e.Out, "check"),
		Build: !v.NoBuild, TipOnly: v.TipOnly, Pinned: p.Version(), Log: e.Stdout})
	if err == nil && v.Tests {
		err = harness.OwnTests(ctx, e.Harness(p, "check-tests", v.Verbose), base, patches)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func init() { register(command{Name: "check", Run: runCheck, Lock: true}) }
