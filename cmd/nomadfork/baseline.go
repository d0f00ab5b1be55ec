package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runBaseline(ctx context.Context, e *env, args []string) error {
	b := harness.BaselineOptions{MadeBy: "`nomadfork baseline`", UsedBy: "`nomadfork test`"}
	if err := parseOptions(e, "baseline", "[-v] [-race-only | -plain-only | -revdeps] [-runs n] [-keep]", args, &b, baselineFlags); err != nil {
		return err
	}
	p, base, err := e.FetchPinned(ctx)
	if err != nil {
		return err
	}
	b.Base, b.Module = base, p.Module.String()
	return harness.Baseline(ctx, e.Harness(p, "baseline", b.Verbose), b)
}

// baselineFlags declares baseline's flags on fs, into b.
func baselineFlags(fs *flag.FlagSet, b *harness.BaselineOptions) {
	verboseFlag(fs, &b.Verbose)
	fs.BoolVar(&b.RaceOnly, "race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	fs.BoolVar(&b.PlainOnly, "plain-only", false, "only refresh the baseline without -race")
	fs.BoolVar(&b.Revdeps, "revdeps", false, "only make the baseline of the reverse dependencies (the packages outside ./client/... whose tests import what the series changes), for nomadfork revdeps -run")
	fs.IntVar(&b.Runs, "runs", 2, "run each suite `n` times and record every test that failed in any run")
	fs.BoolVar(&b.Keep, "keep", false, "keep the entries the baseline files already have (add to them)")
}

func init() { register(command{Name: "baseline", Run: runBaseline, Lock: true}) }
