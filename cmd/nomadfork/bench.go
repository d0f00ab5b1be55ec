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
	return e.experiment("bench", args, cfg.Flags, "[-quick] [-workload list] [-topology single,multi] [-n workload=N,...] [-r rounds] [-versions list] [-variant name=path]... [-o dir] | -from bench.json",
		func(s experiment.Start) error { return bench.Verb(ctx, s, cfg) })
}

// experiment parses the flags of an experiment verb (bench, faults,
// scale), which flags declares with -o defaulting to out/<name>, and
// runs it from the start it makes.
func (e *env) experiment(name string, args []string, flags func(fs *flag.FlagSet, out string), synopsis string, run func(experiment.Start) error) error {
	fs := newFlags(e, name, synopsis)
	flags(fs, filepath.Join(e.Out, name))
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	return run(e.Experiment(experiment.Given(fs), strings.TrimSpace("nomadfork "+name+" "+strings.Join(args, " ")), e.stderr))
}

func init() {
	register(command{Name: "bench", Run: runBench}, command{Name: bench.RunArg, Entry: bench.ScenarioMain})
}
