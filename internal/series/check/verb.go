package check

import (
	"errors"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// Verb is what the check verb's flags ask for.
type Verb struct {
	// NoBuild and TipOnly are Options.Build (negated) and Options.TipOnly;
	// AllowEmpty accepts an empty series; Tests runs each patch's own
	// tests too, Verbose printing their output.
	NoBuild, TipOnly, AllowEmpty, Tests, Verbose bool
}

// Flags declares the check verb's flags on fs.
func (v *Verb) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&v.NoBuild, "no-build", false, "skip building and vetting every prefix of the series and every patch on its dependencies")
	fs.BoolVar(&v.TipOnly, "tip-only", false, "build and vet only the whole series, not every prefix nor each patch on its dependencies (make test, on the lines other than the default one)")
	fs.BoolVar(&v.AllowEmpty, "allow-empty", false, "accept an empty or missing patches/")
	fs.BoolVar(&v.Tests, "tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	fs.BoolVar(&v.Verbose, "v", false, "with -tests, print every test's output")
}

// Check refuses flags that exclude each other.
func (v Verb) Check() error {
	if v.NoBuild && v.TipOnly {
		return cli.UsageError{Err: errors.New("-no-build and -tip-only exclude each other")}
	}
	return nil
}
