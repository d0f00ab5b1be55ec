package scale

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

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
