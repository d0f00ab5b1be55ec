package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// The upgrade and mixed scenarios run two binaries: the pinned version's
// unpatched upstream (Options.Upstream) and the binary under test
// (Options.Nomad). The servers run upstream in both: the fork's patches
// change the client only, and an operator swaps a client's binary under
// the servers it has.

// upgradedClient is the upgrade scenario's only client, whose binary is
// swapped.
const upgradedClient = "client1"

// taskCommand is the upgrade scenario's task: raw_exec runs it under an
// executor that outlives the agent, so a restarted agent reattaches to
// the same process.
const taskCommand = "sleep"

// rawExecConfig enables raw_exec on the clients. The sandbox hides the
// machine's cgroups (read-only), so the executor must not create one.
const rawExecConfig = `plugin "raw_exec" {
  config {
    enabled    = true
    no_cgroups = true
  }
}
`

// clusterSpec is the scenario's cluster: 3 servers and 3 clients of the
// run's binary; the upgrade scenario's 1 client and the servers on
// upstream with raw_exec; the mixed scenario's servers and client1 on
// upstream, client2 and client3 on the binary under test.
func (r *run) clusterSpec() cluster.Spec {
	spec := cluster.Spec{
		Topology: cluster.Multi, Nomad: r.opts.Nomad, Dir: r.opts.Dir, DataRoot: r.opts.DataRoot,
		Clients: 3, StartTimeout: r.opts.StartTimeout, Log: r.log,
	}
	switch {
	case r.fault.Upgrade:
		spec.Nomad, spec.Clients = r.opts.Upstream, 1
		spec.ClientDrivers, spec.ClientExtra = []string{"raw_exec"}, rawExecConfig
	case r.fault.Mixed:
		spec.Nomad = r.opts.Upstream
		spec.AgentNomad = map[string]string{"client2": r.opts.Nomad, "client3": r.opts.Nomad}
	}
	return spec
}

// count is the job's count: the scenario's own, else -n.
func (r *run) count() int {
	if r.fault.Count > 0 {
		return r.fault.Count
	}
	return r.opts.Count
}

// upgradeJob is the upgrade scenario's job: raw_exec tasks that sleep,
// all replaced at once on an update (version is in their environment).
func (r *run) upgradeJob(version int) *cluster.Job {
	j := cluster.ServiceJob(JobID, r.count(), version, r.count())
	tg := &j.TaskGroups[0]
	tg.Name = "sleep"
	tg.Update.MinHealthyTime = time.Second
	tg.Update.HealthyDeadline = 2 * time.Minute
	tg.Update.ProgressDeadline = 5 * time.Minute
	t := &tg.Tasks[0]
	t.Driver = "raw_exec"
	t.Config = map[string]any{"command": "/bin/" + taskCommand, "args": []string{"3600"}}
	return j
}

// upgrade runs the upgrade scenario: the client starts on upstream and
// the job's allocations run; then three times — to the binary under test,
// back to upstream, and a plain restart of upstream as the control — the
// client is stopped, started with the next binary on its data dir, its
// allocations and task processes compared with what ran before, its log
// read for restore errors, and the job updated. Last, the servers' view
// is checked against the client's stored state.
func (r *run) upgrade(ctx context.Context) error {
	upstream, err := experiment.ProbeVersion(ctx, r.opts.Upstream)
	if err != nil {
		return err
	}
	tested, err := experiment.ProbeVersion(ctx, r.opts.Nomad)
	if err != nil {
		return err
	}
	if upstream == tested {
		return fmt.Errorf("%s and %s report the same version and revision (%s, %s): the swap could not be told apart", r.opts.UpstreamLabel, r.opts.Label, tested.Version, tested.Revision)
	}
	t0 := time.Now()
	c, err := cluster.Start(ctx, r.clusterSpec())
	if err != nil {
		return err
	}
	r.c = c
	r.logf("cluster of 3 servers and 1 client (%s) ready in %.1fs", r.opts.UpstreamLabel, time.Since(t0).Seconds())

	version := 0
	if err := r.registerJob(ctx, r.upgradeJob(version)); err != nil {
		return err
	}
	if err := r.waitDeployment(ctx, 0, r.opts.PhaseTimeout); err != nil {
		return fmt.Errorf("initial deployment: %w", err)
	}
	r.logf("initial deployment of %d raw_exec allocations successful on %s", r.count(), r.opts.UpstreamLabel)

	swaps := []struct {
		label, nomad string
		version      experiment.Version
	}{
		{r.opts.Label, r.opts.Nomad, tested},
		{r.opts.UpstreamLabel, r.opts.Upstream, upstream},
		// The control: a plain restart of upstream, what any restart
		// shows (with terminal allocations of two versions by then).
		{r.opts.UpstreamLabel, r.opts.Upstream, upstream},
	}
	from := r.opts.UpstreamLabel
	for _, to := range swaps {
		step := UpgradeStep{From: from, To: to.label}
		before, err := r.stableSnapshot(ctx, uint64(version))
		if err != nil {
			return fmt.Errorf("before %s → %s: %w", from, to.label, err)
		}
		a := r.c.Agent(upgradedClient)
		logStart := logSize(a)
		node, err := r.nodeDetail(ctx)
		if err != nil {
			return err
		}
		r.logf("stopping %s (%s, %d allocations)", upgradedClient, from, len(before.Allocs))
		if !a.Stop(15 * time.Second) {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s: %s did not stop within 15s of SIGINT; killed", from, upgradedClient))
		}
		if r.fault.Control && len(r.res.Steps) == 0 {
			key, err := killTask(before)
			if err != nil {
				return err
			}
			r.res.Killed = key
			r.logf("killed the process of task %s while %s is stopped", shortKey(key), upgradedClient)
		}
		started := time.Now()
		if err := r.c.RestartWith(a, to.nomad); err != nil {
			return err
		}
		if err := r.waitNodeVersion(ctx, to.version, node.ModifyIndex); err != nil {
			step.Problems = append(step.Problems, err.Error())
		} else {
			s := time.Since(started).Seconds()
			step.ReadySeconds = &s
			r.logf("%s ready on %s after %.1fs", upgradedClient, to.label, s)
		}
		// A restore that fails shows after the client contacted the
		// servers (the task runner then starts the task again): give it
		// the settle time.
		if err := experiment.Sleep(ctx, r.opts.Settle); err != nil {
			return err
		}
		after, err := r.snapshot(ctx, uint64(version))
		if err != nil {
			return fmt.Errorf("after %s → %s: %w", from, to.label, err)
		}
		step.Swap = CompareSwap(before, after)
		terminal, err := r.terminalAllocs(ctx)
		if err != nil {
			return err
		}
		step.LogErrors, step.TerminalLogErrors = RestoreErrors(logFrom(a, logStart), terminal)
		r.saveSnapshots(from+"-to-"+to.label, before, after)
		r.logf("%s → %s: %d of %d allocations kept, %d of %d task processes the same, %d restore error(s) in the log (%d of terminal allocations)",
			from, to.label, step.Kept, step.Allocs, step.SamePIDs, step.Tasks, len(step.LogErrors), len(step.TerminalLogErrors))

		version++
		step.UpdateVersion = uint64(version)
		updated := time.Now()
		err = r.registerJob(ctx, r.upgradeJob(version))
		if err == nil {
			err = r.waitDeployment(ctx, uint64(version), r.opts.PhaseTimeout)
		}
		if err != nil {
			step.Problems = append(step.Problems, fmt.Sprintf("job version %d: %v", version, err))
		} else {
			s := time.Since(updated).Seconds()
			step.UpdateSeconds = &s
			r.logf("job version %d deployed on %s in %.1fs", version, to.label, s)
		}
		r.res.Steps = append(r.res.Steps, step)
		if step.ReadySeconds == nil || step.UpdateSeconds == nil {
			return fmt.Errorf("%s → %s: %s", from, to.label, strings.Join(step.Problems, "; "))
		}
		from = to.label
	}
	if _, err := r.stableSnapshot(ctx, uint64(version)); err != nil {
		return err
	}
	return r.check(ctx)
}

// killTask kills (SIGKILL) the process of the snapshot's first task, as
// a crash would while its agent is stopped, and returns its TaskKey.
func killTask(s Snapshot) (string, error) {
	keys := sortedKeys(s.Procs)
	if len(keys) == 0 {
		return "", errors.New("no task process to kill")
	}
	for _, p := range s.Procs[keys[0]] {
		if err := syscall.Kill(p.PID, syscall.SIGKILL); err != nil {
			return "", fmt.Errorf("killing task %s's process %d: %w", shortKey(keys[0]), p.PID, err)
		}
	}
	return keys[0], nil
}

// terminalAllocs returns the job's allocations the servers hold in a
// terminal client status.
func (r *run) terminalAllocs(ctx context.Context) (map[string]bool, error) {
	allocs, err := r.allocs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, a := range allocs {
		switch a.ClientStatus {
		case experiment.ClientComplete, experiment.ClientFailed, experiment.ClientLost:
			out[a.ID] = true
		}
	}
	return out, nil
}

func (r *run) registerJob(ctx context.Context, job *cluster.Job) error {
	return cluster.WaitFor(ctx, fmt.Sprintf("registering job %s", job.ID), 2*time.Minute, time.Second, func() (bool, error) {
		qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
		defer cancel()
		api, err := r.api(qctx)
		if err != nil {
			return false, err
		}
		return api.Register(qctx, job) == nil, nil
	})
}

// snapshot reads the job version's running allocations from the servers
// and the task processes from the sandbox's process table.
func (r *run) snapshot(ctx context.Context, version uint64) (Snapshot, error) {
	allocs, err := r.allocs(ctx)
	if err != nil {
		return Snapshot{}, err
	}
	s := Snapshot{Allocs: map[string]map[string]TaskView{}}
	for _, a := range allocs {
		if a.DesiredStatus != "run" || a.ClientStatus != experiment.ClientRunning || a.JobVersion != version {
			continue
		}
		tasks := map[string]TaskView{}
		for name, t := range a.TaskStates {
			if t != nil {
				tasks[name] = taskView(*t)
			}
		}
		s.Allocs[a.ID] = tasks
	}
	s.Procs, err = ReadTaskProcs("/proc", taskCommand)
	return s, err
}

// stableSnapshot waits until the job version's allocations run, every
// one of their tasks has its process and no other task process is left,
// and returns that snapshot.
func (r *run) stableSnapshot(ctx context.Context, version uint64) (Snapshot, error) {
	var s Snapshot
	var why string
	err := cluster.WaitFor(ctx, fmt.Sprintf("the task processes of job version %d", version), time.Minute, 500*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		var err error
		s, err = r.snapshot(ctx, version)
		if err != nil {
			return false, err
		}
		switch missing := s.Missing(); {
		case len(s.Allocs) != r.count():
			why = fmt.Sprintf("%d of %d allocations running", len(s.Allocs), r.count())
		case len(missing) > 0:
			why = strings.Join(missing, "; ")
		default:
			return true, nil
		}
		return false, nil
	})
	if err != nil && why != "" {
		err = fmt.Errorf("%w (%s)", err, why)
	}
	return s, err
}

// nodeDetail returns the servers' view of the upgraded client's node.
func (r *run) nodeDetail(ctx context.Context) (*cluster.Node, error) {
	stub, err := r.node(ctx, upgradedClient)
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return nil, err
	}
	return api.Node(qctx, stub.ID)
}

// waitNodeVersion waits until the servers hold the upgraded client's node
// changed since index (the new agent registered it), ready, with the
// version and revision of the binary it now runs and a healthy raw_exec.
func (r *run) waitNodeVersion(ctx context.Context, want experiment.Version, index uint64) error {
	var last string
	err := cluster.WaitFor(ctx, fmt.Sprintf("node %s ready on %s", upgradedClient, want.Version), r.opts.StartTimeout, 200*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		n, err := r.nodeDetail(ctx)
		if err != nil {
			return false, err
		}
		d := n.Drivers["raw_exec"]
		last = fmt.Sprintf("%s, version %s, revision %s, raw_exec healthy %t, modify index %d (before the stop: %d)",
			n.Status, n.Attributes["nomad.version"], n.Attributes["nomad.revision"], d != nil && d.Healthy, n.ModifyIndex, index)
		return n.ModifyIndex > index && n.Status == "ready" && n.Attributes["nomad.version"] == want.Version &&
			(want.Revision == "" || n.Attributes["nomad.revision"] == want.Revision) && d != nil && d.Healthy, nil
	})
	if err != nil && last != "" {
		err = fmt.Errorf("%w (last: %s)", err, last)
	}
	return err
}

func logSize(a *cluster.Agent) int64 {
	fi, err := os.Stat(filepath.Join(a.Spec.Dir, "agent.log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logFrom returns the agent's log from offset on.
func logFrom(a *cluster.Agent, offset int64) []byte {
	f, err := os.Open(filepath.Join(a.Spec.Dir, "agent.log"))
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil
	}
	data, _ := io.ReadAll(f)
	return data
}

func (r *run) saveSnapshots(name string, before, after Snapshot) {
	path := filepath.Join(r.opts.Dir, "swap-"+name+".json")
	if err := os.WriteFile(path, mustJSON(map[string]Snapshot{"before": before, "after": after}), 0o644); err != nil {
		r.logf("saving the snapshots: %v", err)
	}
}

// checkMixed fails unless both binaries ran allocations of the rolled
// version, and notes how many each client ran.
func (r *run) checkMixed(ctx context.Context) error {
	allocs, err := r.allocs(ctx)
	if err != nil {
		return err
	}
	nodes := map[string]string{}
	for _, a := range r.c.Clients {
		n, err := r.node(ctx, a.Spec.Name)
		if err != nil {
			return err
		}
		nodes[n.ID] = a.Spec.Name
	}
	perClient := map[string]int{}
	for _, a := range allocs {
		if a.JobVersion == 1 && a.DesiredStatus == "run" && a.ClientStatus == experiment.ClientRunning {
			perClient[nodes[a.NodeID]]++
		}
	}
	perBinary := map[string]int{}
	var parts []string
	for _, a := range r.c.Clients {
		label := r.opts.UpstreamLabel
		if a.Nomad() == r.opts.Nomad {
			label = r.opts.Label
		}
		perBinary[label] += perClient[a.Spec.Name]
		parts = append(parts, fmt.Sprintf("%s (%s) %d", a.Spec.Name, label, perClient[a.Spec.Name]))
	}
	r.res.Notes = append(r.res.Notes, "allocations of version 1 running: "+strings.Join(parts, ", "))
	for _, label := range []string{r.opts.UpstreamLabel, r.opts.Label} {
		if perBinary[label] == 0 {
			return fmt.Errorf("no allocation of version 1 runs on a %s client: the cluster was not mixed", label)
		}
	}
	return nil
}
