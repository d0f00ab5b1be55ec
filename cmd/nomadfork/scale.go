package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/scale"
)

func runScale(ctx context.Context, e *env, args []string) error {
	var cfg scale.Config
	return e.experiment("scale", args, cfg.Flags, "[-smoke] [-n nodes] [-variant name=tree]... [-o dir] | -from scale.json",
		func(s experiment.Start) error { return scale.Verb(ctx, s, cfg) })
}

func init() {
	register(command{Name: "scale", Run: runScale}, command{Name: scale.RunArg, Entry: scale.ScenarioMain})
}
