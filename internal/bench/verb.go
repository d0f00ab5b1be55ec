package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Verb is the bench verb with cfg: it redraws a saved report (-from), or
// builds or reuses the binaries and runs the rounds.
func Verb(ctx context.Context, s experiment.Start, cfg Config) error {
	if cfg.From != "" {
		// A saved report is redrawn with the labels it holds, whatever the
		// pin says now.
		rep, err := ReadReport(cfg.From)
		if err != nil {
			return err
		}
		return WriteResults(rep, filepath.Dir(cfg.From), s.Stdout)
	}
	p, err := s.Pin()
	if err != nil {
		return err
	}
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
	self, err := os.Executable()
	if err != nil {
		return err
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
}
