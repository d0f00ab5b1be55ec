package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/faults"
)

const faultsUsage = "[-smoke] [-faults list] [-versions list] [-variant name=path]... [-n count] [-o dir] | -from faults.json"

// runFaults builds or reuses the binaries and runs the faults package's
// scenarios.
func runFaults(ctx context.Context, e *env, args []string) error {
	var cfg faults.Config
	given, err := e.parseExperiment("faults", args, cfg.Flags, faultsUsage)
	if err != nil {
		return err
	}
	if cfg.From != "" {
		return experiment.Redraw(e.stdout, cfg.From, faults.WriteTable)
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	base := p.Version()
	plan, err := cfg.Resolve(given, base)
	if err != nil {
		return usageError(err)
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", n)
	}
	// The bench's binaries: built once, reused by both verbs.
	built, err := e.benchBinaries(ctx, p, filepath.Join(e.out, "bench"), plan.Build, cfg.Variants)
	if err != nil {
		return err
	}
	bins, upstreamBin := plan.Select(built, base)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &faults.Runner{
		Options: cfg.Options, Faults: plan.Faults, Binaries: bins, Upstream: upstreamBin, Dir: plan.Dir, Self: self,
		Command: commandLine("faults", args), Stdout: e.stdout, Stderr: e.stderr,
	}
	rep, err := r.Run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := faults.WriteTable(e.stdout, rep); err != nil {
		return err
	}
	if bad := rep.ForkNotOK(); len(bad) > 0 {
		return errors.New("the fork is not ok in: " + strings.Join(bad, ", ") + " (agent logs and views under " + filepath.Join(plan.Dir, "runs") + ")")
	}
	if len(rep.Results) > 0 && rep.Failed() > 0 {
		fmt.Fprintf(e.stdout, "note: %d run(s) of other binaries are not ok (reported, not failed on)\n", rep.Failed())
	}
	return nil
}

func init() {
	register(command{Name: "faults", Summary: "fault scenarios on a real cluster: lost updates, duplicate runs, time to converge", Run: runFaults})
	register(command{Name: faults.RunArg, Summary: "one fault scenario, inside the sandbox",
		Entry: faults.ScenarioMain})
}
