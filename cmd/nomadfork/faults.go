package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/faults"
)

const faultsUsage = "[-smoke] [-faults list] [-versions list] [-variant name=path]... [-n count] [-o dir] | -from faults.json"

const faultsHelp = `
Runs fault scenarios on a real cluster in the sandbox — 3 servers and 3
clients, each on a host of its own — for unpatched upstream, the fork and
upstream ` + bench.RefVersion + ` (the bench's binaries, built or reused in out/bench/bin),
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
	fs := newFlags(e, "faults", faultsUsage, faultsHelp)
	opts := faults.DefaultOptions
	opts.ScenarioFlags(fs)
	smoke := fs.Bool("smoke", false, "smoke test: client-restart and upgrade on the fork only, output in <o>/smoke")
	list := fs.String("faults", "all", "comma-separated `scenarios` to run: "+strings.Join(faults.FaultNames(), ", ")+" or all")
	versions := fs.String("versions", "", "comma-separated `labels`: the pinned version (unpatched), fork, upstream versions such as "+bench.RefVersion+" (default: all three; -smoke: fork)")
	var variants bench.VariantFlag
	fs.Var(&variants, "variant", "also run `name=path`, a nomad binary built elsewhere (a rule variant), labelled name (repeatable)")
	out := fs.String("o", filepath.Join(e.out, "faults"), "output `dir`: runs, faults.json")
	from := fs.String("from", "", "run nothing: print the table of a saved faults.json `file`")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if *from != "" {
		rep, err := faults.ReadReport(*from)
		if err != nil {
			return err
		}
		return faults.WriteTable(e.stdout, rep)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The agents run in other directories: binaries and data need a path
	// that does not depend on the working directory.
	dir, err := filepath.Abs(*out)
	if err != nil {
		return usageError{fmt.Errorf("-o: %w", err)}
	}
	if *smoke {
		if !set["faults"] {
			*list = "client-restart,upgrade"
		}
		if !set["versions"] {
			*versions = bench.ForkLabel
		}
		dir = filepath.Join(dir, "smoke")
	}
	chosen, err := faults.ParseFaults(*list)
	if err != nil {
		return usageError{fmt.Errorf("-faults: %w", err)}
	}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	base := p.Version()
	labels := bench.DefaultLabels(base)
	if *versions != "" {
		if labels, err = bench.ParseLabels(*versions, base); err != nil {
			return usageError{fmt.Errorf("-versions: %w", err)}
		}
	}
	for _, v := range variants {
		for _, l := range labels {
			if l == v.Name {
				return usageError{fmt.Errorf("-variant %s: the label is taken", v.Name)}
			}
		}
	}

	// The bench's binaries: built once, reused by both verbs. The pair
	// scenarios also need the pinned version's unpatched binary.
	build := labels
	pair := false
	for _, f := range chosen {
		pair = pair || f.Pair()
	}
	if pair && !slices.Contains(labels, bench.ForkLabel) && len(variants) == 0 {
		if set["faults"] {
			return usageError{fmt.Errorf("-faults: upgrade, upgrade-control and mixed run for the fork and the variants only: add %s to -versions or give a -variant", bench.ForkLabel)}
		}
		// Every scenario, but no tested binary: the others only.
		chosen = slices.DeleteFunc(chosen, faults.Fault.Pair)
		pair = false
		fmt.Fprintf(e.stdout, "note: upgrade, upgrade-control and mixed skipped: they run for the fork and the variants only\n")
	}
	if pair && !slices.Contains(labels, base) {
		build = append([]string{base}, labels...)
	}
	built, err := e.benchBinaries(ctx, p, filepath.Join(e.out, "bench"), build, variants)
	if err != nil {
		return err
	}
	var bins []bench.Binary
	var upstreamBin *bench.Binary
	for i, b := range built {
		if b.Label == base && !b.Variant {
			upstreamBin = &built[i]
		}
		if b.Variant || slices.Contains(labels, b.Label) {
			bins = append(bins, b)
		}
	}
	if !pair {
		upstreamBin = nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &faults.Runner{
		Options: opts, Faults: chosen, Binaries: bins, Upstream: upstreamBin, Dir: dir, Self: self,
		Command: strings.TrimSpace("nomadfork faults " + strings.Join(args, " ")),
		Stdout:  e.stdout, Stderr: e.stderr,
	}
	rep, err := r.Run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := faults.WriteTable(e.stdout, rep); err != nil {
		return err
	}
	var bad []string
	for _, res := range rep.Results {
		if res.Label == bench.ForkLabel && !res.OK() {
			bad = append(bad, res.Fault)
		}
	}
	if len(bad) > 0 {
		return errors.New("the fork is not ok in: " + strings.Join(bad, ", ") + " (agent logs and views under " + filepath.Join(dir, "runs") + ")")
	}
	if len(rep.Results) > 0 && rep.Failed() > 0 {
		fmt.Fprintf(e.stdout, "note: %d run(s) of other binaries are not ok (reported, not failed on)\n", rep.Failed())
	}
	return nil
}
