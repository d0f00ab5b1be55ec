package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runRevdeps(ctx context.Context, e *env, args []string) error {
	var r harness.RevdepsOptions
	return e.harnessVerb(ctx, "revdeps", "[-run [-no-baseline]] [-v] [-retry=false]", args, &r, &r.Verbose,
		func(o harness.Options) error { return harness.Revdeps(ctx, o, r) })
}

func init() { register(command{Name: "revdeps", Run: runRevdeps}) }
