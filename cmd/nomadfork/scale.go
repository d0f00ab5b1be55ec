package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/scale"
)

const scaleUsage = "[-smoke] [-n nodes] [-variant name=tree]... [-o dir] | -from scale.json"

// runScale builds the simulator and the servers' binary and runs the
// scale package's scenario.
func runScale(ctx context.Context, e *env, args []string) error {
	var cfg scale.Config
	given, err := e.parseExperiment("scale", args, cfg.Flags, scaleUsage)
	if err != nil {
		return err
	}
	if cfg.From != "" {
		return experiment.Redraw(e.stdout, cfg.From, scale.WriteTable)
	}
	out, dir, err := cfg.Resolve(given)
	if err != nil {
		return usageError(err)
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	servers, err := e.benchBinaries(ctx, p, filepath.Join(e.out, "bench"), []string{experiment.ForkLabel}, nil)
	if err != nil {
		return err
	}
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	builds, err := scale.BuildSimulators(ctx, e.sim, t.Dir, cfg.Variants, out, e.stdout)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &scale.Runner{
		Scenario: cfg.Scenario, Servers: servers[0], Builds: builds, Dir: dir, Self: self,
		Command: commandLine("scale", args), Stdout: e.stdout, Stderr: e.stderr,
	}
	rep, err := r.Run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := scale.WriteTable(e.stdout, rep); err != nil {
		return err
	}
	if n := rep.Failed(); n > 0 {
		return fmt.Errorf("%d of %d run(s) not ok (logs and views under %s)", n, len(rep.Results), filepath.Join(dir, "runs"))
	}
	return nil
}

func init() {
	register(command{Name: "scale", Summary: "N simulated nodes (sim/) against 3 servers: RPCs, Raft applies, CPU, memory per node; the fork vs rule variants", Run: runScale})
	register(command{Name: scale.RunArg, Summary: "the scale scenario once, inside the sandbox",
		Entry: scale.ScenarioMain})
}
