package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runContract(ctx context.Context, e *env, args []string) error {
	var c harness.ContractOptions
	return e.harnessVerb(ctx, "contract", "[-v] [-retry=false] [-keep] [-pkgs dirs]", args, &c, &c.Verbose,
		func(o harness.Options) error { return harness.Contract(ctx, o, c.Retry, c.Keep, c.Pkgs) })
}

func init() { register(command{Name: "contract", Run: runContract, Lock: true}) }
