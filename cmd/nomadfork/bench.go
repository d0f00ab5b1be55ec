package main

import "github.com/nomad-client-fork/nomad-client-fork/internal/bench"

func init() {
	register(experimentCommand[bench.Config]("bench", "[-quick] [-workload list] [-topology single,multi] [-n workload=N,...] [-r rounds] [-versions list] [-variant name=path]... [-o dir] | -from bench.json", bench.Run),
		command{Name: bench.RunArg, Entry: bench.ScenarioMain})
}
