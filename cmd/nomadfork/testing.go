package main

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

const (
	helpTest = `Runs upstream's client tests of the line's work tree (and sim/'s, built
against that tree) in the sandbox, skipping the baselines' failures of
unpatched upstream; a failure counts only if it persists on retry and
passes on unpatched upstream. Each failed or flaky test's full output is
written to out/test/<suite>/<package>.<Test>.log (suites: client,
client-race, sim). -client=false runs sim/'s tests alone (make test-sim).`
	helpBaseline = `Runs the suites of nomadfork test on unpatched upstream and writes the
baselines: the union of the failures of -runs runs (-revdeps: of revdeps -run).`
	helpContract = `Runs upstream's unchanged tests of the packages whose _test.go files the
series modifies on the patched code, sandboxed (Changes-Test names exempt).`
	helpRevdeps = `Type-checks the tests outside ./client/... that import what the series
changes; -run runs them in the sandbox against the baseline -revdeps.`
)

// harnessOptions are the files and directories of the harness.
func (e *env) harnessOptions(p *pin.Pin, scratch string, verbose bool) harness.Options {
	return harness.Options{
		Tree:    e.tree,
		Scratch: filepath.Join(e.out, scratch),
		Plain:   filepath.Join(e.baseline, "client-"+p.Version()+".tsv"),
		Race:    filepath.Join(e.baseline, "client-race-"+p.Version()+".tsv"),
		Revdeps: filepath.Join(e.baseline, "revdeps-"+p.Version()+".tsv"),
		Series:  e.patches,
		Module:  p.Module.Path,
		Version: p.Version(),
		Sim:     e.sim,
		SimMod:  filepath.Join(e.out, "sim", p.Version()),
		Verbose: verbose,
		Log:     e.stdout,
	}
}

// harnessOn requires the work tree and returns the harness options of the
// pinned version.
func (e *env) harnessOn(ctx context.Context, scratch string, verbose bool) (harness.Options, error) {
	if _, err := e.requireWorkTree(ctx); err != nil {
		return harness.Options{}, err
	}
	p, err := e.loadPin()
	if err != nil {
		return harness.Options{}, err
	}
	return e.harnessOptions(p, scratch, verbose), nil
}

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=false] [-client=false | -sim=false]", helpTest)
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	client := fs.Bool("client", true, "run upstream's client tests (false: only sim/'s)")
	race := fs.Bool("race", true, "also run the packages the series touches with -race, against the race baseline")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream")
	sim := fs.Bool("sim", true, "also run the tests of the sim/ module, built against the line's work tree")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if !*client && !*sim {
		return usageError{errors.New("-client=false -sim=false runs nothing")}
	}
	o, err := e.harnessOn(ctx, "test", *verbose)
	if err != nil {
		return err
	}
	return harness.Test(ctx, o, harness.TestOptions{Client: *client, Race: *race, Sim: *sim, Retry: *retry})
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v] [-race-only | -plain-only | -revdeps] [-runs n] [-keep]", helpBaseline)
	verbose := fs.Bool("v", false, "print every test's output")
	raceOnly := fs.Bool("race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	plainOnly := fs.Bool("plain-only", false, "only refresh the baseline without -race")
	revdeps := fs.Bool("revdeps", false, "only make the baseline of the reverse dependencies (the packages outside ./client/... whose tests import what the series changes), for nomadfork revdeps -run")
	runs := fs.Int("runs", 2, "run each suite `n` times and record every test that failed in any run")
	keep := fs.Bool("keep", false, "keep the entries the baseline files already have (add to them)")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	p, base, err := e.fetchBase(ctx, e.tree)
	if err != nil {
		return err
	}
	return harness.Baseline(ctx, e.harnessOptions(p, "baseline", *verbose), harness.BaselineOptions{Base: base, Module: p.Module.String(), Runs: *runs,
		Keep: *keep, RaceOnly: *raceOnly, PlainOnly: *plainOnly, Revdeps: *revdeps})
}

func runContract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "contract", "[-v] [-retry=false] [-keep]", helpContract)
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	keep := fs.Bool("keep", false, "keep the contract tree in out/contract/nomad for inspection")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	o, err := e.harnessOn(ctx, "contract", *verbose)
	if err != nil {
		return err
	}
	return harness.Contract(ctx, o, *retry, *keep)
}

func runRevdeps(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "revdeps", "[-run [-no-baseline]] [-v] [-retry=false]", helpRevdeps)
	run := fs.Bool("run", false, "also run their tests in the sandbox (what make test-full adds)")
	noBaseline := fs.Bool("no-baseline", false, "with -run, without the reverse-dependency baseline: try every failure on unpatched upstream")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	o, err := e.harnessOn(ctx, "revdeps", *verbose)
	if err != nil {
		return err
	}
	return harness.Revdeps(ctx, o, harness.RevdepsOptions{Run: *run, NoBaseline: *noBaseline, Retry: *retry})
}
