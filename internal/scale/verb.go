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
	// SizesFlag is -sizes as given; Sizes the fleet sizes Resolve makes
	// of it: DefaultSizes unless -sizes, -n or -smoke says otherwise.
	SizesFlag string
	Sizes     []int
	Rounds    int
	// RunFlags are -smoke, -variant (work trees), -o and -from.
	experiment.RunFlags
	// Job are -place job's flags for an operator's own clusters.
	Job JobFlags
}

// Flags declares the scale verb's flags on fs; out is the default output
// directory.
func (c *Config) Flags(fs *flag.FlagSet, out string) {
	c.Scenario = DefaultScenario
	c.Scenario.Flags(fs)
	fs.StringVar(&c.SizesFlag, "sizes", FormatSizes(DefaultSizes), "comma-separated fleet `sizes` (nodes), each run with every build; -n runs one size")
	fs.IntVar(&c.Rounds, "rounds", 1, "`rounds`: runs of every build at every size, interleaved")
	c.RunFlags.Flags(fs, out, experiment.FlagHelp{
		Smoke:   "smoke test: 20 nodes (with -place job: 2 instances × 10), the fork only, output in <o>/smoke (<o>/smoke-job)",
		Variant: "also run the simulator built against `name=tree`, a Nomad work tree (a rule variant), labelled name (repeatable)",
		Out:     "output `dir`: simulator builds, runs, scale.json",
		From:    "run nothing: print the table of a saved scale.json `file`",
	})
	c.Job.Flags(fs)
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
		smoke := "smoke"
		if c.Scenario.Job() {
			smoke = "smoke-job"
		}
		if dir, err = c.Dir(smoke); err != nil {
			return "", "", err
		}
	}
	c.Sizes = nil
	if set["sizes"] || (!set["n"] && !c.Smoke) {
		if c.Sizes, err = ParseSizes(c.SizesFlag); err != nil {
			return "", "", err
		}
	}
	if c.Smoke && set["sizes"] {
		return "", "", fmt.Errorf("-smoke runs one size (-n), not -sizes")
	}
	if c.Rounds < 1 {
		return "", "", fmt.Errorf("-rounds must be at least 1")
	}
	if err := c.Scenario.Validate(); err != nil {
		return "", "", err
	}
	if err := c.Job.Validate(c.Scenario); err != nil {
		return "", "", err
	}
	for _, n := range c.Sizes {
		if err := c.Scenario.Sized(n, set["max-parallel"]).Validate(); err != nil {
			return "", "", fmt.Errorf("size %d: %w", n, err)
		}
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
		"workloads":       func() { sc.Workloads = smoke.Workloads },
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

// ResolveOperator checks the flags of the operator's mode (-jobspec-only
// or -place-addr: one fleet of -n nodes placed on the operator's own
// clusters, nothing run in the sandbox); set lists the given flags.
func (c *Config) ResolveOperator(set map[string]bool) error {
	for _, name := range []string{"sizes", "rounds", "workloads", "variant", "smoke", "from"} {
		if set[name] {
			return fmt.Errorf("-%s runs in the sandbox; with -jobspec-only or -place-addr the tool places one fleet of -n nodes and runs no workload", name)
		}
	}
	if err := c.Scenario.Validate(); err != nil {
		return err
	}
	return c.Job.Validate(c.Scenario)
}

// Run is the scale verb with cfg: it redraws a saved report (-from), or
// builds the simulator and the servers' binary and runs the scenario.
func Run(ctx context.Context, s experiment.Start, cfg Config) error {
	if cfg.Job.Operator() {
		// An operator's own clusters: no build, no sandbox, one fleet.
		if err := cfg.ResolveOperator(s.Given); err != nil {
			return cli.UsageError{Err: err}
		}
		return RunOperator(ctx, cfg.Scenario, cfg.Job, s.Stdout)
	}
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
			Scenario: cfg.Scenario, Sizes: cfg.Sizes, Rounds: cfg.Rounds, KeepMaxParallel: s.Given["max-parallel"],
			Servers: servers[0], Builds: builds, Dir: dir, Self: self,
			Command: s.Command, Stdout: s.Stdout, Stderr: s.Stderr,
		}
		rep, err := experiment.RunTable(ctx, s.Stdout, r.Run, WriteTable)
		if err != nil {
			return err
		}
		if len(rep.Sizes) > 1 {
			files, err := WriteCharts(rep, filepath.Join(dir, "charts"))
			if err != nil {
				return fmt.Errorf("charts: %w", err)
			}
			fmt.Fprintf(s.Stdout, "charts: %d in %s\n", len(files), filepath.Join(dir, "charts"))
		}
		if n := rep.Failed(); n > 0 {
			return fmt.Errorf("%d of %d run(s) not ok (logs and views under %s)", n, len(rep.Results), filepath.Join(dir, "runs"))
		}
		return nil
	})
}
