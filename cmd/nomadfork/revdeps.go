package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runRevdeps(ctx context.Context, e *env, args []string) error {
	var r harness.RevdepsOptions
	return harnessVerb(ctx, e, "revdeps", "[-run [-no-baseline]] [-v] [-retry=false]", args, &r, revdepsFlags, &r.Verbose,
		func(o harness.Options) error { return harness.Revdeps(ctx, o, r) })
}

// revdepsFlags declares revdeps' flags on fs, into r.
func revdepsFlags(fs *flag.FlagSet, r *harness.RevdepsOptions) {
	verboseFlag(fs, &r.Verbose)
	retryFlag(fs, &r.Retry)
	fs.BoolVar(&r.Run, "run", false, "also run their tests in the sandbox (what make test-full adds)")
	fs.BoolVar(&r.NoBaseline, "no-baseline", false, "with -run, without the reverse-dependency baseline: try every failure on unpatched upstream")
}

func init() { register(command{Name: "revdeps", Run: runRevdeps}) }
