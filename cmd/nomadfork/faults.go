package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/faults"
)

func runFaults(ctx context.Context, e *env, args []string) error {
	var cfg faults.Config
	return e.experiment("faults", args, cfg.Flags, "[-smoke] [-faults list] [-versions list] [-variant name=path]... [-n count] [-o dir] | -from faults.json",
		func(s experiment.Start) error { return faults.Verb(ctx, s, cfg) })
}

func init() {
	register(command{Name: "faults", Run: runFaults}, command{Name: faults.RunArg, Entry: faults.ScenarioMain})
}
