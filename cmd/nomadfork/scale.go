package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
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
	fs := newFlags(e, "scale", scaleUsage, scaleHelp)
	smoke := fs.Bool("smoke", false, "smoke test: 20 nodes, the fork only, output in <o>/smoke")
	var sc scale.Scenario
	// The smoke test's defaults are set below for the flags not given.
	sc = scale.DefaultScenario
	sc.Flags(fs)
	var variants bench.VariantFlag
	fs.Var(&variants, "variant", "also run the simulator built against `name=tree`, a Nomad work tree (a rule variant), labelled name (repeatable)")
	out := fs.String("o", filepath.Join(e.out, "scale"), "output `dir`: simulator builds, runs, scale.json")
	from := fs.String("from", "", "run nothing: print the table of a saved scale.json `file`")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if *from != "" {
		rep, err := scale.ReadReport(*from)
		if err != nil {
			return err
		}
		return scale.WriteTable(e.stdout, rep)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The simulator runs from its own directory, on a host of its own.
	outDir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	dir := outDir
	if *smoke {
		sc = smokeScenario(sc, set)
		dir = filepath.Join(dir, "smoke")
	}
	if err := sc.Validate(); err != nil {
		return usageError{err}
	}
	for _, v := range variants {
		if v.Name == bench.ForkLabel {
			return usageError{fmt.Errorf("-variant %s: the label is taken", v.Name)}
		}
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	servers, err := e.benchBinaries(ctx, p, filepath.Join(e.out, "bench"), []string{bench.ForkLabel}, nil)
	if err != nil {
		return err
	}
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	trees := []bench.Variant{{Name: bench.ForkLabel, Path: t.Dir}}
	trees = append(trees, variants...)
	var builds []scale.Build
	for _, v := range trees {
		b := scale.Build{Label: v.Name, Tree: v.Path, Path: filepath.Join(outDir, "bin", v.Name, "nodesim")}
		b.Commit = treeCommit(ctx, v.Path)
		if err := scale.BuildNodesim(ctx, e.sim, v.Path, b.Path, e.stdout); err != nil {
			return fmt.Errorf("simulator %s: %w", v.Name, err)
		}
		builds = append(builds, b)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &scale.Runner{
		Scenario: sc, Servers: servers[0], Builds: builds, Dir: dir, Self: self,
		Command: strings.TrimSpace("nomadfork scale " + strings.Join(args, " ")),
		Stdout:  e.stdout, Stderr: e.stderr,
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

// smokeScenario applies the smoke test's defaults to the flags not given.
func smokeScenario(sc scale.Scenario, set map[string]bool) scale.Scenario {
	smoke := scale.SmokeScenario
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

// treeCommit describes a work tree's HEAD, +CHANGES when it has uncommitted
// changes; "" when it is not a git work tree.
func treeCommit(ctx context.Context, dir string) string {
	r := &git.Repo{Dir: dir}
	head, err := r.ResolveCommit(ctx, "HEAD")
	if err != nil {
		return ""
	}
	if dirty, err := r.Status(ctx); err == nil && len(dirty) > 0 {
		head += "+CHANGES"
	}
	return head
}
