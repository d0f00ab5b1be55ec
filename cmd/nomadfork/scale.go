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

const scaleHelp = `
Runs the scale simulation in the sandbox: the 3 servers of the bench's multi
topology (the fork's nomad, built or reused in out/bench/bin) and, on a host
of its own, N simulated client nodes in one process (sim/cmd/nodesim with
realistic alloc runners: the updates of mock_driver tasks). It deploys jobs
of -allocs-per-node × N allocations in total, then rolls them, and reports
the Node.UpdateAlloc RPCs and Raft applies (summed over the servers, read
every 5 s), the leader's and the servers' CPU, the deployment times and the simulator's memory per node
(its resident memory at steady state / N). It checks every allocation: all
of the new version running and healthy on the servers, and the servers'
view of each equal to its node's own (0 lost updates).

The simulator is built against the line's work tree (label fork) and, for
each -variant name=tree, against that Nomad work tree: a rule variant
prepared with scripts/build-variant.sh -src-only <name> (out/variants/src/
<name>), such as every-tick, v1.5.3's behaviour. Each runs in a fresh
sandbox, one at a time. Writes <o>/scale.json and each run's logs and views
under <o>/runs; exits 1 when a run is not ok.
-smoke: 20 nodes, 200 allocations, the fork only, output in <o>/smoke;
asserts correctness only, never speed.`

// runScale builds the simulator and the servers' binary and runs the
// scale package's scenario.
func runScale(ctx context.Context, e *env, args []string) error {
	var cfg scale.Config
	given, err := e.parseExperiment("scale", args, cfg.Flags, scaleUsage, scaleHelp)
	if err != nil {
		return err
	}
	if cfg.From != "" {
		return experiment.Redraw(e.stdout, cfg.From, scale.WriteTable)
	}
	out, dir, err := cfg.Resolve(given)
	if err != nil {
		return usageError{err}
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
	register(command{name: "scale", summary: "N simulated nodes (sim/) against 3 servers: RPCs, Raft applies, CPU, memory per node; the fork vs rule variants",
		help: scaleHelp, run: runScale})
	register(command{name: scale.RunArg, summary: "the scale scenario once, inside the sandbox",
		help:  "Runs the scale scenario once inside the sandbox (scale re-executes the\ntool with it) and prints its result as one line of JSON on stdout.",
		entry: scale.ScenarioMain})
}
