package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
)

// runCheck checks the line's series (check.Series) and with -tests runs
// each patch's own tests (harness.OwnTests).
func runCheck(ctx context.Context, e *env, args []string) error {
	var v check.VerbOptions
	if err := e.parseOptions("check", "[-no-build | -tip-only | -prefixes-only] [-allow-empty] [-tests [-v]]", args, &v); err != nil {
		return err
	}
	patches, p, base, err := e.SeriesAndBase(ctx, v.AllowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{Repo: e.Tree.Repo, Base: base, Scratch: filepath.Join(e.Out, "check"),
		Scope: v.Scope(), Pinned: p.Version(), Log: e.Stdout})
	if err == nil && v.Tests {
		err = harness.OwnTests(ctx, e.Harness(p, "check-tests", v.Verbose), base, patches)
	}
	if err != nil {
		return err
	}
	return e.printed(hint.Sprintf("check: %d patch(es) ok", len(patches)), nil)
}

func init() { register(command{Name: "check", Run: runCheck, Lock: true}) }
