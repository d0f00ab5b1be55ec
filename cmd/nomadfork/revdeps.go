package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runRevdeps(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "revdeps", "[-run [-no-baseline]] [-v] [-retry=false]")
	run := fs.Bool("run", false, "also run their tests in the sandbox (what make test-full adds)")
	noBaseline := fs.Bool("no-baseline", false, "with -run, without the reverse-dependency baseline: try every failure on unpatched upstream")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	o, err := e.harnessOn(ctx, "revdeps", *verbose)
	if err != nil {
		return err
	}
	return harness.Revdeps(ctx, o, harness.RevdepsOptions{Run: *run, NoBaseline: *noBaseline, Retry: *retry})
}

func init() {
	register(command{Name: "revdeps", Summary: "type-check (-run: run) the tests outside ./client/... that import what the series changes", Run: runRevdeps})
}
