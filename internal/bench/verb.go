package bench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// Run is the bench verb with cfg: it redraws a saved report (-from), or
// builds or reuses the binaries and runs the rounds.
func Run(ctx context.Context, s experiment.Start, cfg Config) error {
	return experiment.Run(ctx, s, cfg.From, redraw, func(ctx context.Context, p *pin.Pin, self string) error {
		base := p.Version()
		labels, resultsDir, err := cfg.Resolve(s.Given, base)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		bins, err := s.Binaries(ctx, p, cfg.Out, labels, cfg.Variants)
		if err != nil {
			return err
		}
		if cfg.BuildOnly {
			for _, bin := range bins {
				fmt.Fprintf(s.Stdout, "%-10s %s\n", bin.Label, bin.Path)
			}
			return nil
		}
		r := &Runner{
			Scenario: cfg.Scenario, Topologies: cfg.Topologies, Rounds: cfg.Rounds, Binaries: bins, Dir: resultsDir, Retry: cfg.Retry, Warmup: cfg.Warmup,
			Self: self, Command: s.Command, Base: base, Fork: experiment.ForkLabel, Ref: experiment.RefVersion,
			Stdout: s.Stdout, Stderr: s.Stderr,
		}
		rep, failed, err := r.Run(ctx)
		if err != nil {
			return err
		}
		if err := WriteResults(rep, resultsDir, s.Stdout); err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d run(s) failed (agent logs under %s)", failed, len(rep.Runs), filepath.Join(resultsDir, "runs"))
		}
		return nil
	})
}

// redraw writes the results of the report saved at path again, next to
// it, with the labels it holds.
func redraw(w io.Writer, path string) error {
	rep, err := ReadReport(path)
	if err != nil {
		return err
	}
	return WriteResults(rep, filepath.Dir(path), w)
}
