package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
)

// runCheck checks the line's series (check.Series) and with -tests runs
// each patch's own tests (harness.OwnTests).
func runCheck(ctx context.Context, e *env, args []string) error {
	var v check.VerbOptions
	if err := parseOptions(e, "check", "[-no-build | -tip-only | -prefixes-only] [-allow-empty] [-tests [-v]]", args, &v, checkFlags); err != nil {
		return err
	}
	patches, p, base, err := e.SeriesAndBase(ctx, v.AllowEmpty)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{Repo: e.Tree.Repo, Base: base, Scratch: filepath.Join(e.Out, "check"),
		Scope: v.Scope(), Pinned: p.Version(), Log: e.Stdout})
	if err == nil && v.Tests {
		err = harness.OwnTests(ctx, e.Harness(p, "check-tests", v.Verbose), base, patches)
	}
	if err != nil {
		return err
	}
	return e.printed(hint.Sprintf("check: %d patch(es) ok", len(patches)), nil)
}

// checkFlags declares check's flags on fs, into v.
func checkFlags(fs *flag.FlagSet, v *check.VerbOptions) {
	fs.BoolVar(&v.NoBuild, "no-build", false, "skip compiling and vetting every prefix of the series and every patch on its dependencies (what make test runs on every line)")
	fs.BoolVar(&v.TipOnly, "tip-only", false, "build and vet only the whole series, not every prefix; each patch on its dependencies is applied, not compiled")
	fs.BoolVar(&v.PrefixesOnly, "prefixes-only", false, "compile and vet every prefix, but only apply each patch on its dependencies, without compiling it")
	fs.BoolVar(&v.AllowEmpty, "allow-empty", false, "accept an empty or missing patches/")
	fs.BoolVar(&v.Tests, "tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	fs.BoolVar(&v.Verbose, "v", false, "with -tests, print every test's output")
}

func init() { register(command{Name: "check", Run: runCheck, Lock: true}) }
