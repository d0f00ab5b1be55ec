package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v] [-race-only | -plain-only | -revdeps] [-runs n] [-keep]")
	verbose := fs.Bool("v", false, "print every test's output")
	raceOnly := fs.Bool("race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	plainOnly := fs.Bool("plain-only", false, "only refresh the baseline without -race")
	revdeps := fs.Bool("revdeps", false, "only make the baseline of the reverse dependencies (the packages outside ./client/... whose tests import what the series changes), for nomadfork revdeps -run")
	runs := fs.Int("runs", 2, "run each suite `n` times and record every test that failed in any run")
	keep := fs.Bool("keep", false, "keep the entries the baseline files already have (add to them)")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	p, base, err := e.tree.FetchPinned(ctx, e.line.Pin)
	if err != nil {
		return err
	}
	return harness.Baseline(ctx, e.harnessOptions(p, "baseline", *verbose), harness.BaselineOptions{Base: base, Module: p.Module.String(), Runs: *runs,
		Keep: *keep, RaceOnly: *raceOnly, PlainOnly: *plainOnly, Revdeps: *revdeps, MadeBy: "`nomadfork baseline`", UsedBy: "`nomadfork test`"})
}

func init() {
	register(command{Name: "baseline", Summary: "run the same tests on unpatched upstream and write the baselines", Run: runBaseline, Lock: true})
}
