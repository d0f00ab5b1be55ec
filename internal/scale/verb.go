package scale

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// Config is the scale verb's options.
type Config struct {
	Scenario Scenario
	// RunFlags are -smoke, -variant (work trees), -o and -from.
	experiment.RunFlags
}

// Flags declares the scale verb's flags on fs; out is the default output
// directory.
func (c *Config) Flags(fs *flag.FlagSet, out string) {
	c.Scenario = DefaultScenario
	c.Scenario.Flags(fs)
	c.RunFlags.Flags(fs, out, experiment.FlagHelp{
		Smoke:   "smoke test: 20 nodes, the fork only, output in <o>/smoke",
		Variant: "also run the simulator built against `name=tree`, a Nomad work tree (a rule variant), labelled name (repeatable)",
		Out:     "output `dir`: simulator builds, runs, scale.json",
		From:    "run nothing: print the table of a saved scale.json `file`",
	})
}

// Resolve applies the smoke test's defaults to the flags not given (set
// lists the given ones, see experiment.Given) and checks the values; it
// returns the output directory (the simulators' builds go there) and the
// results directory.
func (c *Config) Resolve(set map[string]bool) (out, dir string, err error) {
	if out, err = c.Dir(""); err != nil {
		return "", "", err
	}
	dir = out
	if c.Smoke {
		c.Scenario = smokeScenario(c.Scenario, set)
		if dir, err = c.Dir("smoke"); err != nil {
			return "", "", err
		}
	}
	if err := c.Scenario.Validate(); err != nil {
		return "", "", err
	}
	if err := experiment.CheckVariants([]string{experiment.ForkLabel}, c.Variants); err != nil {
		return "", "", err
	}
	return out, dir, nil
}

// smokeScenario applies the smoke test's defaults to the flags not given.
func smokeScenario(sc Scenario, set map[string]bool) Scenario {
	smoke := SmokeScenario
	fields := map[string]func(){
		"n":               func() { sc.Nodes = smoke.Nodes },
		"allocs-per-node": func() { sc.AllocsPerNode = smoke.AllocsPerNode },
		"jobs":            func() { sc.Jobs = smoke.Jobs },
		"max-parallel":    func() { sc.MaxParallel = smoke.MaxParallel },
		"min-healthy":     func() { sc.MinHealthy = smoke.MinHealthy },
		"settle":          func() { sc.Settle = smoke.Settle },
		"phase-timeout":   func() { sc.PhaseTimeout = smoke.PhaseTimeout },
		"start-timeout":   func() { sc.StartTimeout = smoke.StartTimeout },
	}
	for name, apply := range fields {
		if !set[name] {
			apply()
		}
	}
	return sc
}

// Run is the scale verb with cfg: it redraws a saved report (-from), or
// builds the simulator and the servers' binary and runs the scenario.
func Run(ctx context.Context, s experiment.Start, cfg Config) error {
	return experiment.Run(ctx, s, cfg.From, experiment.Redraw(WriteTable), func(ctx context.Context, p *pin.Pin, self string) error {
		out, dir, err := cfg.Resolve(s.Given)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		servers, err := s.Binaries(ctx, p, filepath.Join(s.Out, "bench"), []string{experiment.ForkLabel}, nil)
		if err != nil {
			return err
		}
		builds, err := BuildSimulators(ctx, s.Sim, s.Tree.Dir, cfg.Variants, out, s.Stdout)
		if err != nil {
			return err
		}
		r := &Runner{
			Scenario: cfg.Scenario, Servers: servers[0], Builds: builds, Dir: dir, Self: self,
			Command: s.Command, Stdout: s.Stdout, Stderr: s.Stderr,
		}
		rep, err := experiment.RunTable(ctx, s.Stdout, r.Run, WriteTable)
		if err != nil {
			return err
		}
		if n := rep.Failed(); n > 0 {
			return fmt.Errorf("%d of %d run(s) not ok (logs and views under %s)", n, len(rep.Results), filepath.Join(dir, "runs"))
		}
		return nil
	})
}
