package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

const benchUsage = "[-quick] [-workload list] [-topology single,multi] [-n workload=N,...] [-r rounds] [-versions list] [-variant name=path]... [-o dir] | -from bench.json"

// runBench builds or reuses the binaries and runs the bench package's
// rounds; the options and the round loop live in package bench.
func runBench(ctx context.Context, e *env, args []string) error {
	var cfg bench.Config
	given, err := e.parseExperiment("bench", args, cfg.Flags, benchUsage)
	if err != nil {
		return err
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
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	base := p.Version()
	labels, resultsDir, err := cfg.Resolve(given, base)
	if err != nil {
		return usageError(err)
	}

	bins, err := e.benchBinaries(ctx, p, cfg.Out, labels, cfg.Variants)
	if err != nil {
		return err
	}
	if cfg.BuildOnly {
		for _, bin := range bins {
			fmt.Fprintf(e.stdout, "%-10s %s\n", bin.Label, bin.Path)
		}
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &bench.Runner{
		Scenario: cfg.Scenario, Topologies: cfg.Topologies, Rounds: cfg.Rounds, Binaries: bins, Dir: resultsDir, Retry: cfg.Retry, Warmup: cfg.Warmup,
		Self: self, Command: commandLine("bench", args), Base: base, Fork: experiment.ForkLabel, Ref: experiment.RefVersion,
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

// benchBinaries builds, or reuses from dir, the nomad binaries of labels
// (the pinned version, the fork of the line's work tree, upstream versions)
// and of variants, for the bench and the fault scenarios.
func (e *env) benchBinaries(ctx context.Context, p *pin.Pin, dir string, labels []string, variants []experiment.Variant) ([]experiment.Binary, error) {
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return nil, err
	}
	b, err := experiment.NewBuilder(t, p, e.root, e.log, dir, e.stdout)
	if err != nil {
		return nil, err
	}
	return b.Binaries(ctx, labels, variants)
}

// commandLine is the command a report names.
func commandLine(verb string, args []string) string {
	return strings.TrimSpace("nomadfork " + verb + " " + strings.Join(args, " "))
}

// parseExperiment parses an experiment verb's flags, which flags declares
// with -o defaulting to out/<name>, and returns the flags given.
func (e *env) parseExperiment(name string, args []string, flags func(fs *flag.FlagSet, out string), synopsis string) (map[string]bool, error) {
	fs := newFlags(e, name, synopsis)
	flags(fs, filepath.Join(e.out, name))
	if err := e.parse(fs, args, 0); err != nil {
		return nil, err
	}
	return experiment.Given(fs), nil
}

func init() {
	register(command{Name: "bench", Summary: "measure alloc-update traffic, bytes, CPU and deployment times of a real cluster (3 servers, 3 clients)", Run: runBench})
	register(command{Name: bench.RunArg, Summary: "one bench scenario, inside the sandbox",
		Entry: bench.ScenarioMain})
}
