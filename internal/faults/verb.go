package faults

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// Config is the faults verb's options.
type Config struct {
	// Options are the scenario options every run shares.
	Options Options
	Faults  string
	// RunFlags are -smoke, -versions, -variant, -o and -from.
	experiment.RunFlags
}

// Flags declares the faults verb's flags on fs; out is the default output
// directory.
func (c *Config) Flags(fs *flag.FlagSet, out string) {
	c.Options = DefaultOptions
	c.Options.ScenarioFlags(fs)
	fs.StringVar(&c.Faults, "faults", "all", "comma-separated `scenarios` to run: "+strings.Join(FaultNames(), ", ")+" or all")
	c.RunFlags.Flags(fs, out, experiment.FlagHelp{
		Smoke:    "smoke test: client-restart and upgrade on the fork only, output in <o>/smoke",
		Versions: "comma-separated `labels`: the pinned version (unpatched), fork, upstream versions such as " + experiment.RefVersion + " (default: all three — once if the pinned version is " + experiment.RefVersion + "; -smoke: fork)",
		Variant:  "also run `name=path`, a nomad binary built elsewhere (a rule variant), labelled name (repeatable)",
		Out:      "output `dir`: runs, faults.json",
		From:     "run nothing: print the table of a saved faults.json `file`",
	})
}

// Plan is what a faults invocation runs.
type Plan struct {
	Faults []Fault
	// Labels are the binaries the scenarios run for (the variants
	// besides); Build adds the pinned version's unpatched binary when a
	// pair scenario needs it.
	Labels, Build []string
	// Pair is whether a pair scenario runs (beside the unpatched binary).
	Pair bool
	// Dir is the results directory.
	Dir string
	// Notes are for the user: scenarios skipped.
	Notes []string
}

// ErrPairNeedsTested is Resolve's error when -faults names a pair
// scenario but no binary it runs for.
var ErrPairNeedsTested = errors.New("upgrade, upgrade-control and mixed run for the fork and the variants only: add " + experiment.ForkLabel + " to -versions or give a -variant")

// Resolve applies -smoke's defaults to the flags not given (set lists the
// given ones, see experiment.Given), checks the values and returns the
// plan; base is the pinned version.
func (c *Config) Resolve(set map[string]bool, base string) (*Plan, error) {
	p := &Plan{}
	var defaults []string // experiment.DefaultLabels
	sub := ""
	if c.Smoke {
		if !set["faults"] {
			c.Faults = "client-restart,upgrade"
		}
		defaults = []string{experiment.ForkLabel}
		sub = "smoke"
	}
	var err error
	if p.Dir, err = c.Dir(sub); err != nil {
		return nil, err
	}
	if p.Faults, err = ParseFaults(c.Faults); err != nil {
		return nil, fmt.Errorf("-faults: %w", err)
	}
	if err := c.Options.Validate(); err != nil {
		return nil, err
	}
	if p.Labels, err = c.Labels(base, defaults); err != nil {
		return nil, err
	}
	p.Build = p.Labels
	for _, f := range p.Faults {
		p.Pair = p.Pair || f.Pair()
	}
	if p.Pair && !slices.Contains(p.Labels, experiment.ForkLabel) && len(c.Variants) == 0 {
		if set["faults"] {
			return nil, fmt.Errorf("-faults: %w", ErrPairNeedsTested)
		}
		// Every scenario, but no tested binary: the others only.
		p.Faults = slices.DeleteFunc(p.Faults, Fault.Pair)
		p.Pair = false
		p.Notes = append(p.Notes, "upgrade, upgrade-control and mixed skipped: they run for the fork and the variants only")
	}
	if p.Pair && !slices.Contains(p.Labels, base) {
		p.Build = append([]string{base}, p.Labels...)
	}
	return p, nil
}

// Select returns, of the built binaries (Build's labels and the
// variants'), those the scenarios run for and the pinned version's
// unpatched binary the pair scenarios run beside (nil without one).
func (p *Plan) Select(built []experiment.Binary, base string) (bins []experiment.Binary, upstream *experiment.Binary) {
	for i, b := range built {
		if b.Label == base && !b.Variant && p.Pair {
			upstream = &built[i]
		}
		if b.Variant || slices.Contains(p.Labels, b.Label) {
			bins = append(bins, b)
		}
	}
	return bins, upstream
}

// ForkNotOK lists the scenarios in which a run of the fork is not ok.
func (rep *Report) ForkNotOK() []string {
	var bad []string
	for _, res := range rep.Results {
		if res.Label == experiment.ForkLabel && !res.OK() {
			bad = append(bad, res.Fault)
		}
	}
	return bad
}

// Run is the faults verb with cfg: it redraws a saved report (-from), or
// builds or reuses the binaries and runs the scenarios.
func Run(ctx context.Context, s experiment.Start, cfg Config) error {
	return experiment.Run(ctx, s, cfg.From, experiment.Redraw(WriteTable), func(ctx context.Context, p *pin.Pin, self string) error {
		base := p.Version()
		plan, err := cfg.Resolve(s.Given, base)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		for _, n := range plan.Notes {
			fmt.Fprintf(s.Stdout, "note: %s\n", n)
		}
		// The bench's binaries: built once, reused by both verbs.
		built, err := s.Binaries(ctx, p, filepath.Join(s.Out, "bench"), plan.Build, cfg.Variants)
		if err != nil {
			return err
		}
		bins, upstreamBin := plan.Select(built, base)
		r := &Runner{
			Options: cfg.Options, Faults: plan.Faults, Binaries: bins, Upstream: upstreamBin, Dir: plan.Dir, Self: self,
			Command: s.Command, Stdout: s.Stdout, Stderr: s.Stderr,
		}
		rep, err := experiment.RunTable(ctx, s.Stdout, r.Run, WriteTable)
		if err != nil {
			return err
		}
		if bad := rep.ForkNotOK(); len(bad) > 0 {
			return errors.New("the fork is not ok in: " + strings.Join(bad, ", ") + " (agent logs and views under " + filepath.Join(plan.Dir, "runs") + ")")
		}
		if len(rep.Results) > 0 && rep.Failed() > 0 {
			fmt.Fprintf(s.Stdout, "note: %d run(s) of other binaries are not ok (reported, not failed on)\n", rep.Failed())
		}
		return nil
	})
}
