package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

const benchUsage = "[-quick] [-topology multi|single] [-n count] [-r rounds] [-versions list] [-variant name=path]... [-o dir] | -from bench.json"

// runBench builds or reuses the binaries and runs the bench package's
// rounds; the options and the round loop live in package bench.
func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", benchUsage)
	var cfg bench.Config
	cfg.Flags(fs, filepath.Join(e.out, "bench"))
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	if cfg.From != "" {
		// A saved report is redrawn with the labels it holds, whatever the
		// pin says now.
		rep, err := bench.ReadReport(cfg.From)
		if err != nil {
			return err
		}
		return bench.WriteResults(rep, filepath.Dir(cfg.From), e.stdout)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	base := p.Version()
	labels, resultsDir, err := cfg.Resolve(set, base)
	if err != nil {
		return usageError{err}
	}

	// Binaries.
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	release, err := build.ForkRelease(e.log, base)
	if err != nil {
		return err
	}
	b := &bench.Builder{Tree: t, Pin: p, Targets: targets, ForkRelease: release, Dir: cfg.Out, Log: e.stdout}
	var bins []bench.Binary
	for _, l := range labels {
		var bin bench.Binary
		switch l {
		case base:
			bin, err = b.Base(ctx)
		case bench.ForkLabel:
			bin, err = b.Fork(ctx)
		default:
			bin, err = b.Upstream(ctx, l)
		}
		if err != nil {
			return fmt.Errorf("%s binary: %w", l, err)
		}
		bins = append(bins, bin)
	}
	for _, v := range cfg.Variants {
		for _, bin := range bins {
			if bin.Label == v.Name {
				return usageError{fmt.Errorf("-variant %s: the label is taken", v.Name)}
			}
		}
		bin, err := bench.External(v.Name, v.Path)
		if err != nil {
			return err
		}
		bins = append(bins, bin)
	}
	if cfg.BuildOnly {
		for _, bin := range bins {
			fmt.Fprintf(e.stdout, "%-10s %s\n", bin.Label, bin.Path)
		}
		return nil
	}
	if len(bins) == 0 {
		return usageError{errors.New("nothing to run")}
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	command := strings.TrimSpace("nomadfork bench " + strings.Join(args, " "))
	r := &bench.Runner{
		Scenario: cfg.Scenario, Rounds: cfg.Rounds, Binaries: bins, Dir: resultsDir, Retry: cfg.Retry,
		Self: self, Command: command, Base: base, Fork: bench.ForkLabel, Ref: bench.RefVersion,
		Stdout: e.stdout, Stderr: e.stderr,
	}
	rep, failed, err := r.Run(ctx)
	if err != nil {
		return err
	}
	if err := bench.WriteResults(rep, resultsDir, e.stdout); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d run(s) failed (agent logs under %s)", failed, len(rep.Runs), filepath.Join(resultsDir, "runs"))
	}
	return nil
}
