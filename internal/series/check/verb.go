package check

import (
	"errors"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// VerbOptions are the check verb's flags (Options are a check's).
type VerbOptions struct {
	// NoBuild, TipOnly and PrefixesOnly choose Options.Scope (see
	// Scope); AllowEmpty accepts an empty series; Tests runs each
	// patch's own tests too, Verbose printing their output.
	NoBuild, TipOnly, PrefixesOnly, AllowEmpty, Tests, Verbose bool
}

// Flags declares the check verb's flags on fs.
func (v *VerbOptions) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&v.NoBuild, "no-build", false, "skip compiling and vetting every prefix of the series and every patch on its dependencies (what make test runs on every line)")
	fs.BoolVar(&v.TipOnly, "tip-only", false, "build and vet only the whole series, not every prefix; each patch on its dependencies is applied, not compiled")
	fs.BoolVar(&v.PrefixesOnly, "prefixes-only", false, "compile and vet every prefix, but only apply each patch on its dependencies, without compiling it")
	fs.BoolVar(&v.AllowEmpty, "allow-empty", false, "accept an empty or missing patches/")
	fs.BoolVar(&v.Tests, "tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	fs.BoolVar(&v.Verbose, "v", false, "with -tests, print every test's output")
}

// Scope is the scope the flags choose: Full without any of them.
func (v VerbOptions) Scope() Scope {
	switch {
	case v.NoBuild:
		return None
	case v.TipOnly:
		return Tip
	case v.PrefixesOnly:
		return Prefixes
	}
	return Full
}

// Check refuses flags that exclude each other, and -v without -tests (it
// would be silently ignored).
func (v VerbOptions) Check() error {
	if v.Verbose && !v.Tests {
		return cli.UsageError{Err: errors.New("-v goes with -tests (it prints the output of each patch's tests)")}
	}
	return cli.AtMostOne(cli.Flag{Name: "no-build", Set: v.NoBuild}, cli.Flag{Name: "tip-only", Set: v.TipOnly}, cli.Flag{Name: "prefixes-only", Set: v.PrefixesOnly})
}
