package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runTest(ctx context.Context, e *env, args []string) error {
	var t harness.TestOptions
	return harnessVerb(ctx, e, "test", "[-v] [-race=false] [-retry=false] [-client=false | -sim=false]", args, &t, testFlags, &t.Verbose,
		func(o harness.Options) error { return harness.Test(ctx, o, t) })
}

// testFlags declares test's flags on fs, into t.
func testFlags(fs *flag.FlagSet, t *harness.TestOptions) {
	verboseFlag(fs, &t.Verbose)
	retryFlag(fs, &t.Retry)
	fs.BoolVar(&t.Client, "client", true, "run upstream's client tests (false: only sim/'s)")
	fs.BoolVar(&t.Race, "race", true, "also run the packages the series touches with -race, against the race baseline")
	fs.BoolVar(&t.Sim, "sim", true, "also run the tests of the sim/ module, built against the line's work tree")
}

func init() { register(command{Name: "test", Run: runTest}) }
