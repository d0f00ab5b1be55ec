package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runTest(ctx context.Context, e *env, args []string) error {
	var t harness.TestOptions
	return e.harnessVerb(ctx, "test", "[-v] [-race=false] [-retry=false] [-client=false | -sim=false]", args, &t, &t.Verbose,
		func(o harness.Options) error { return harness.Test(ctx, o, t) })
}

func init() { register(command{Name: "test", Run: runTest}) }
