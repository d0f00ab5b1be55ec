package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

const (
	helpTest = `Runs upstream's client tests of nomad/ (and sim/'s) in the sandbox, skipping
the baselines' failures of unpatched upstream; a failure counts only if it
persists on retry and passes on unpatched upstream.`
	helpBaseline = `Runs the suites of nomadfork test on unpatched upstream and writes the
baselines: the union of the failures of -runs runs.`
)

// harnessOptions are the files and directories of the harness.
func (e *env) harnessOptions(p *pin.Pin, scratch string, verbose bool) harness.Options {
	return harness.Options{
		Tree:    e.tree,
		Scratch: filepath.Join(e.out, scratch),
		Plain:   filepath.Join(e.baseline, "client-"+p.Version()+".tsv"),
		Race:    filepath.Join(e.baseline, "client-race-"+p.Version()+".tsv"),
		Sim:     e.sim,
		Verbose: verbose,
		Log:     e.stdout,
	}
}

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=false] [-sim=false]", helpTest)
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	race := fs.Bool("race", true, "also run the packages the series touches with -race, against the race baseline")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream")
	sim := fs.Bool("sim", true, "also run the tests of the sim/ module")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if _, err := e.requireWorkTree(ctx); err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	o := e.harnessOptions(p, "test", *verbose)
	if !*sim {
		o.Sim = ""
	}
	return harness.Test(ctx, o, *race, *retry)
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v] [-race-only | -plain-only] [-runs n] [-keep]", helpBaseline)
	verbose := fs.Bool("v", false, "print every test's output")
	raceOnly := fs.Bool("race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	plainOnly := fs.Bool("plain-only", false, "only refresh the baseline without -race")
	runs := fs.Int("runs", 2, "run each suite `n` times and record every test that failed in any run")
	keep := fs.Bool("keep", false, "keep the entries the baseline files already have (add to them)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	p, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return err
	}
	return harness.Baseline(ctx, e.harnessOptions(p, "baseline", *verbose), harness.BaselineOptions{Base: base, Module: p.Module.String(), Runs: *runs,
		Keep: *keep, RaceOnly: *raceOnly, PlainOnly: *plainOnly})
}
