package main

import (
	"context"
	"errors"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=false] [-client=false | -sim=false]")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	client := fs.Bool("client", true, "run upstream's client tests (false: only sim/'s)")
	race := fs.Bool("race", true, "also run the packages the series touches with -race, against the race baseline")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream")
	sim := fs.Bool("sim", true, "also run the tests of the sim/ module, built against the line's work tree")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if !*client && !*sim {
		return usageError(errors.New("-client=false -sim=false runs nothing"))
	}
	o, err := e.harnessOn(ctx, "test", *verbose)
	if err != nil {
		return err
	}
	return harness.Test(ctx, o, harness.TestOptions{Client: *client, Race: *race, Sim: *sim, Retry: *retry})
}

func init() {
	register(command{Name: "test", Summary: "run upstream's client tests (and sim's) in the sandbox against the baselines", Run: runTest})
}
