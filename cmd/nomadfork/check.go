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
	t := e.tree
	patches, p, base, err := t.SeriesAndBase(ctx, e.line.Dir, e.line.Pin, v.AllowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{Repo: t.Repo, Base: base, Scratch: filepath.Join(e.out, "check"),
		Build: !v.NoBuild, TipOnly: v.TipOnly, Pinned: p.Version(), Log: e.stdout})
	if err == nil && v.Tests {
		err = harness.OwnTests(ctx, e.harnessOptions(p, "check-tests", v.Verbose), base, patches)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func init() { register(command{Name: "check", Run: runCheck, Lock: true}) }
