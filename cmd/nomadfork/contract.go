package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
)

func runContract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "contract", "[-v] [-retry=false] [-keep]")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	keep := fs.Bool("keep", false, "keep the contract tree in out/contract/nomad for inspection")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	o, err := e.harnessOn(ctx, "contract", *verbose)
	if err != nil {
		return err
	}
	return harness.Contract(ctx, o, *retry, *keep)
}

func init() {
	register(command{Name: "contract", Summary: "run upstream's unchanged tests of the packages the series changes on the patched code", Run: runContract, Lock: true})
}
