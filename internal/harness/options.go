package harness

import (
	"errors"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// The checks of the harness verbs' options (test, baseline, revdeps,
// contract); cmd/nomadfork declares their flags.

// Check refuses a run of nothing.
func (t TestOptions) Check() error {
	if !t.Client && !t.Sim {
		return cli.UsageError{Err: errors.New("-client=false -sim=false runs nothing")}
	}
	return nil
}

// Check refuses a baseline of no run, which would replace the baseline
// files with empty ones, and more than one of -race-only, -plain-only and
// -revdeps, which together would make none of them.
func (b BaselineOptions) Check() error {
	if b.Runs < 1 {
		return cli.UsageError{Err: errors.New("-runs must be at least 1")}
	}
	return cli.AtMostOne(cli.Flag{Name: "race-only", Set: b.RaceOnly}, cli.Flag{Name: "plain-only", Set: b.PlainOnly}, cli.Flag{Name: "revdeps", Set: b.Revdeps})
}

// ContractOptions are the contract verb's flags (see Contract).
type ContractOptions struct {
	Verbose, Retry, Keep bool
	// Pkgs limits the run to the packages in or under these directories
	// of the tree (empty: every package whose tests the series modifies).
	Pkgs []string
}
