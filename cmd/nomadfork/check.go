package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
)

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[-no-build | -tip-only] [-allow-empty] [-tests [-v]]")
	noBuild := fs.Bool("no-build", false, "skip building and vetting every prefix of the series and every patch on its dependencies")
	tipOnly := fs.Bool("tip-only", false, "build and vet only the whole series, not every prefix nor each patch on its dependencies (make test, on the lines other than the default one)")
	allowEmpty := fs.Bool("allow-empty", false, "accept an empty or missing patches/")
	tests := fs.Bool("tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	verbose := fs.Bool("v", false, "with -tests, print every test's output")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if *noBuild && *tipOnly {
		return usageError(errors.New("-no-build and -tip-only exclude each other"))
	}
	t := e.tree
	patches, p, base, err := t.SeriesAndBase(ctx, e.line.Dir, e.line.Pin, *allowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{
		Repo:    t.Repo,
		Base:    base,
		Scratch: filepath.Join(e.out, "check"),
		Build:   !*noBuild,
		TipOnly: *tipOnly,
		Pinned:  p.Version(),
		Log:     e.stdout,
	})
	if err == nil && *tests {
		err = harness.OwnTests(ctx, e.harnessOptions(p, "check-tests", *verbose), base, patches)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func init() {
	register(command{Name: "check", Summary: "lint; apply exactly, build and vet every prefix and each patch on its Depends-On", Run: runCheck, Lock: true})
}
