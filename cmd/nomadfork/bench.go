package main

import (
	"context"
	"flag"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

func runBench(ctx context.Context, e *env, args []string) error {
	var cfg bench.Config
	s, err := e.experiment("bench", args, cfg.Flags, "[-quick] [-workload list] [-topology single,multi] [-n workload=N,...] [-r rounds] [-versions list] [-variant name=path]... [-o dir] | -from bench.json")
	if err != nil {
		return err
	}
	return bench.Verb(ctx, s, cfg)
}

// experiment parses the flags of an experiment verb (bench, faults,
// scale), which flags declares with -o defaulting to out/<name>, and
// returns what the verb starts from.
func (e *env) experiment(name string, args []string, flags func(fs *flag.FlagSet, out string), synopsis string) (experiment.Start, error) {
	fs := newFlags(e, name, synopsis)
	flags(fs, filepath.Join(e.out, name))
	if err := e.parse(fs, args, 0); err != nil {
		return experiment.Start{}, err
	}
	return experiment.Start{Given: experiment.Given(fs), Root: e.root, Out: e.out, Sim: e.sim, Changelog: e.log, PinFile: e.line.Pin, Tree: e.tree,
		Command: strings.TrimSpace("nomadfork " + name + " " + strings.Join(args, " ")), Stdout: e.stdout, Stderr: e.stderr}, nil
}

func init() {
	register(command{Name: "bench", Run: runBench}, command{Name: bench.RunArg, Entry: bench.ScenarioMain})
}
