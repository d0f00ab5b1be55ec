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

const faultsHelp = `
Runs fault scenarios on a real cluster in the sandbox — 3 servers and 3
clients, each on a host of its own — for unpatched upstream, the fork and
upstream ` + experiment.RefVersion + ` (the bench's binaries, built or reused in out/bench/bin),
each scenario × binary in a fresh sandbox, one at a time:

  leader-kill     SIGKILL the Raft leader mid rolling deployment
  client-restart  stop a client agent mid deployment, start it again on its data dir
  partition       a client host's link down until its node is down, then up
  partition-mcd   the same with max_client_disconnect = 2m in the job
  server-stall    SIGSTOP the leader for 15 s mid deployment, then SIGCONT
  dropped-update  the checker's control: after convergence, restart a task on a
                  client cut off from the servers and stop the agent before it
                  reconnects; ok only when exactly that update is reported lost
  upgrade         in-place upgrade and back: a client of unpatched upstream with
                  6 running raw_exec sleep tasks is stopped and started with the
                  tested binary on its data dir, then with upstream again; after
                  each swap: the same allocations run, the same task PIDs, no
                  restore error in its log, the node ready, a job update deploys
  upgrade-control the upgrade checks' live control: the upgrade, but one task's
                  process is killed while the client is stopped for the first
                  swap; ok only when exactly that task is reported
  mixed           upstream servers and client1, client2 and client3 of the
                  tested binary deploy and roll one job

upgrade, upgrade-control and mixed run for the fork and the variants only, beside the pinned
version's unpatched binary (built or reused even when -versions leaves it
out), whose servers stay on upstream.

After each fault the run waits for the cluster to converge, stops the
clients and compares every allocation's ClientStatus, deployment health and
task states on the servers with the client's stored state (nomad operator
client-state): lost updates, duplicate runs, time to converge, RPCs.
Prints a table per scenario; writes <o>/faults.json and each run's agent
logs and views under <o>/runs. Exits 1 when a run of the fork lost an
update (but the control's), ran an allocation twice, did not converge or
failed.
-smoke: client-restart and upgrade on the fork only, output in <o>/smoke.`

// runFaults builds or reuses the binaries and runs the faults package's
// scenarios.
func runFaults(ctx context.Context, e *env, args []string) error {
	var cfg faults.Config
	given, err := e.parseExperiment("faults", args, cfg.Flags, faultsUsage, faultsHelp)
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
		return usageError{err}
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
	register(command{name: "faults", summary: "fault scenarios on a real cluster: lost updates, duplicate runs, time to converge",
		help: faultsHelp, run: runFaults})
	register(command{name: faults.RunArg, summary: "one fault scenario, inside the sandbox",
		help:  "Runs one fault scenario inside the sandbox (faults re-executes the tool\nwith it) and prints its result as one line of JSON on stdout.",
		entry: faults.ScenarioMain})
}
