package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runBaseline(ctx context.Context, e *env, args []string) error {
	b := harness.BaselineOptions{MadeBy: "`nomadfork baseline`", UsedBy: "`nomadfork test`"}
	if err := e.parseOptions("baseline", "[-v] [-race-only | -plain-only | -revdeps] [-runs n] [-keep]", args, &b); err != nil {
		return err
	}
	p, base, err := e.FetchPinned(ctx)
	if err != nil {
		return err
	}
	b.Base, b.Module = base, p.Module.String()
	return harness.Baseline(ctx, e.Harness(p, "baseline", b.Verbose), b)
}

func init() { register(command{Name: "baseline", Run: runBaseline, Lock: true}) }
