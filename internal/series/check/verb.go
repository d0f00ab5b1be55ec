package check

import (
	"errors"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// VerbOptions are the check verb's flags (Options are a check's).
type VerbOptions struct {
	// NoBuild, TipOnly and PrefixesOnly choose Options.Scope (see
	// Scope); AllowEmpty accepts an empty series; Tests runs each
	// patch's own tests too, Verbose printing their output.
	NoBuild, TipOnly, PrefixesOnly, AllowEmpty, Tests, Verbose bool
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
