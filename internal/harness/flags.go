package harness

import (
	"errors"
	"flag"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// The flags of the harness verbs (test, baseline, revdeps, contract) are
// declared here, as cmd/go's internal/work declares the build flags: -v
// and -retry mean the same in each.

func verboseFlag(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "v", false, "print every test's output, not only failures")
}

func retryFlag(fs *flag.FlagSet, retry *bool) {
	fs.BoolVar(retry, "retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
}

// Flags declares the test verb's flags on fs.
func (t *TestOptions) Flags(fs *flag.FlagSet) {
	verboseFlag(fs, &t.Verbose)
	retryFlag(fs, &t.Retry)
	fs.BoolVar(&t.Client, "client", true, "run upstream's client tests (false: only sim/'s)")
	fs.BoolVar(&t.Race, "race", true, "also run the packages the series touches with -race, against the race baseline")
	fs.BoolVar(&t.Sim, "sim", true, "also run the tests of the sim/ module, built against the line's work tree")
}

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

// Flags declares the baseline verb's flags on fs.
func (b *BaselineOptions) Flags(fs *flag.FlagSet) {
	verboseFlag(fs, &b.Verbose)
	fs.BoolVar(&b.RaceOnly, "race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	fs.BoolVar(&b.PlainOnly, "plain-only", false, "only refresh the baseline without -race")
	fs.BoolVar(&b.Revdeps, "revdeps", false, "only make the baseline of the reverse dependencies (the packages outside ./client/... whose tests import what the series changes), for nomadfork revdeps -run")
	fs.IntVar(&b.Runs, "runs", 2, "run each suite `n` times and record every test that failed in any run")
	fs.BoolVar(&b.Keep, "keep", false, "keep the entries the baseline files already have (add to them)")
}

// Flags declares the revdeps verb's flags on fs.
func (r *RevdepsOptions) Flags(fs *flag.FlagSet) {
	verboseFlag(fs, &r.Verbose)
	retryFlag(fs, &r.Retry)
	fs.BoolVar(&r.Run, "run", false, "also run their tests in the sandbox (what make test-full adds)")
	fs.BoolVar(&r.NoBaseline, "no-baseline", false, "with -run, without the reverse-dependency baseline: try every failure on unpatched upstream")
}

// ContractOptions are the contract verb's flags (see Contract).
type ContractOptions struct {
	Verbose, Retry, Keep bool
	// Pkgs limits the run to the packages in or under these directories
	// of the tree (empty: every package whose tests the series modifies).
	Pkgs []string
}

// Flags declares the contract verb's flags on fs.
func (c *ContractOptions) Flags(fs *flag.FlagSet) {
	verboseFlag(fs, &c.Verbose)
	retryFlag(fs, &c.Retry)
	fs.BoolVar(&c.Keep, "keep", false, "keep the contract tree in out/contract/nomad for inspection")
	fs.Func("pkgs", "run only the packages in or under these comma-separated `dirs` of the tree (client,acl); default: every package whose tests the series modifies", func(v string) error {
		c.Pkgs = nil
		for _, d := range strings.Split(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				c.Pkgs = append(c.Pkgs, d)
			}
		}
		return nil
	})
}
