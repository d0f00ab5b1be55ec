package main

import "github.com/nomad-client-fork/nomad-client-fork/internal/scale"

func init() {
	register(experimentCommand[scale.Config]("scale", "[-smoke] [-sizes n,n,... | -n nodes] [-rounds r] [-workloads w,w] [-place job [-instances K]] [-variant name=tree]... [-o dir] | -place job -jobspec-only|-place-addr url -servers addrs | -from scale.json", scale.Run),
		command{Name: scale.RunArg, Entry: scale.ScenarioMain})
}
