package faults

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

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
