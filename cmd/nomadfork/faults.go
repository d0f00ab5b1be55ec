package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

After each fault the run waits for the cluster to converge, stops the
clients and compares every allocation's ClientStatus, deployment health and
task states on the servers with the client's stored state (nomad operator
client-state): lost updates, duplicate runs, time to converge, RPCs.
Prints a table per scenario; writes <o>/faults.json and each run's agent
logs and views under <o>/runs. Exits 1 when a run of the fork lost an
update (but the control's), ran an allocation twice, did not converge or
failed.
-smoke: client-restart on the fork only, output in <o>/smoke.`

// runFaults builds or reuses the binaries and runs the faults package's
// scenarios.
func runFaults(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "faults", faultsUsage, faultsHelp)
	opts := faults.DefaultOptions
	opts.ScenarioFlags(fs)
	smoke := fs.Bool("smoke", false, "smoke test: client-restart on the fork only, output in <o>/smoke")
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
			*list = "client-restart"
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

	// The bench's binaries: built once, reused by both verbs.
	bins, err := e.benchBinaries(ctx, p, filepath.Join(e.out, "bench"), labels, variants)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := &faults.Runner{
		Options: opts, Faults: chosen, Binaries: bins, Dir: dir, Self: self,
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
