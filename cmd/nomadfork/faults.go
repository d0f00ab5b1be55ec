package main

import "github.com/nomad-client-fork/nomad-client-fork/internal/faults"

func init() {
	register(experimentCommand[faults.Config]("faults", "[-smoke] [-faults list] [-versions list] [-variant name=path]... [-n count] [-o dir] | -from faults.json", faults.Run),
		command{Name: faults.RunArg, Entry: faults.ScenarioMain})
}
