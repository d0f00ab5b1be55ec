package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// The scenarios in which the servers' view of the clients goes backwards:
// a restore of an older snapshot, reads served by a follower that lags,
// and a client stopped while its final updates are unsent.

// metricClientCompleted counts the tasks a client's task runners recorded
// dead without failing (ended or killed).
const metricClientCompleted = "nomad_client_allocs_complete"

// snapshotFile is the snapshot-restore scenario's snapshot, kept in the
// run's directory.
const snapshotFile = "snapshot.snap"

// staleReadPin is how long the stale-read scenario pins the clients to the
// lagging follower: shorter than the nodes' heartbeat TTL and grace (about
// 20 s on a cluster of 3 clients), so no node is marked down.
const staleReadPin = 8 * time.Second

// flushStall bounds how long the shutdown-flush scenario keeps the leader
// stalled after it stops the client.
const flushStall = 3 * time.Second

// snapshotRestore saves a snapshot through the API mid deployment, lets
// the deployment finish (version 0's allocations stop, version 1's become
// healthy), then restores the older snapshot. The servers' view goes back
// to the middle of the deployment while the clients ran on.
func (r *run) snapshotRestore(ctx context.Context) (time.Time, error) {
	api, err := r.api(ctx)
	if err != nil {
		return time.Time{}, err
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	snap, err := api.SnapshotSave(sctx)
	cancel()
	if err != nil {
		return time.Time{}, err
	}
	saved := time.Now()
	if err := os.WriteFile(filepath.Join(r.opts.Dir, snapshotFile), snap, 0o644); err != nil {
		r.logf("keeping the snapshot: %v", err)
	}
	r.logf("saved a snapshot of %d bytes mid deployment", len(snap))
	if err := r.waitDeployment(ctx, 1, r.opts.PhaseTimeout); err != nil {
		return time.Time{}, fmt.Errorf("the deployment after the snapshot: %w", err)
	}
	// The clients' last updates of the deployment (version 0's complete)
	// land before the servers' view goes back.
	if err := experiment.Sleep(ctx, r.opts.Settle); err != nil {
		return time.Time{}, err
	}
	if api, err = r.api(ctx); err != nil {
		return time.Time{}, err
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = api.SnapshotRestore(rctx, snap)
	cancel()
	if err != nil {
		return time.Time{}, err
	}
	if _, err := r.c.WaitLeader(ctx, time.Minute); err != nil {
		return time.Time{}, fmt.Errorf("no leader after the restore: %w", err)
	}
	r.logf("restored the snapshot saved %.1fs before", time.Since(saved).Seconds())
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("snapshot saved mid deployment, restored %.0fs later, after the deployment succeeded", time.Since(saved).Seconds()))
	return time.Now(), nil
}

// staleRead makes a follower lag and serves the clients from it: it cuts
// a follower off from every other agent; the others finish the deployment
// and collect the stopped allocations (system gc); then it pins every
// client to the lagging follower (the clients reach it alone, so their
// reads — AllowStale — are its answers and their writes go through it) for
// staleReadPin; then it joins the follower to the servers and the clients
// to every server again.
func (r *run) staleRead(ctx context.Context) (time.Time, error) {
	leader, err := r.c.WaitLeader(ctx, time.Minute)
	if err != nil {
		return time.Time{}, err
	}
	follower := r.c.Others(leader)[0]
	others := r.c.Others(follower)
	cuts := &separations{c: r.c}
	heal := func() error {
		r.lagging = nil
		return cuts.joinAll(ctx)
	}
	defer func() { _ = heal() }()
	lagging := []*cluster.Agent{follower}
	r.logf("cutting the follower %s off from every other agent", follower.Spec.Name)
	if err := cuts.separate(ctx, lagging, others); err != nil {
		return time.Time{}, err
	}
	if err := cuts.separate(ctx, lagging, r.c.Clients); err != nil {
		return time.Time{}, err
	}
	r.lagging = follower

	if err := r.waitDeployment(ctx, 1, r.opts.PhaseTimeout); err != nil {
		return time.Time{}, fmt.Errorf("the deployment while %s lags: %w", follower.Spec.Name, err)
	}
	collected, err := r.collect(ctx)
	if err != nil {
		return time.Time{}, err
	}
	r.logf("deployment successful and %d stopped allocation(s) collected while %s lags", collected, follower.Spec.Name)

	if err := cuts.join(ctx, lagging, r.c.Clients); err != nil {
		return time.Time{}, err
	}
	if err := cuts.separate(ctx, r.c.Clients, others); err != nil {
		return time.Time{}, err
	}
	r.logf("clients pinned to the lagging %s for %s", follower.Spec.Name, staleReadPin)
	if err := experiment.Sleep(ctx, staleReadPin); err != nil {
		return time.Time{}, err
	}
	if err := heal(); err != nil {
		return time.Time{}, err
	}
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("follower %s cut off while the deployment finished and %d stopped allocation(s) were collected; clients pinned to it for %s", follower.Spec.Name, collected, staleReadPin))
	return time.Now(), nil
}

// separations are the groups of agents a scenario separated, so that it
// joins them all again whatever happens.
type separations struct {
	c    *cluster.Cluster
	made [][2][]*cluster.Agent
}

// separate separates a from b (cluster.Separate) and records it, even
// when it fails part way.
func (s *separations) separate(ctx context.Context, a, b []*cluster.Agent) error {
	s.made = append(s.made, [2][]*cluster.Agent{a, b})
	return s.c.Separate(ctx, a, b, true)
}

// join joins a and b again and forgets their separation.
func (s *separations) join(ctx context.Context, a, b []*cluster.Agent) error {
	s.made = slices.DeleteFunc(s.made, func(m [2][]*cluster.Agent) bool {
		return slices.Equal(m[0], a) && slices.Equal(m[1], b)
	})
	return s.c.Separate(ctx, a, b, false)
}

// joinAll joins every recorded separation again, the last first.
func (s *separations) joinAll(ctx context.Context) error {
	var errs []error
	for i := len(s.made) - 1; i >= 0; i-- {
		errs = append(errs, s.c.Separate(ctx, s.made[i][0], s.made[i][1], false))
	}
	s.made = nil
	return errors.Join(errs...)
}

// collect runs the servers' garbage collection and waits until they hold
// no allocation of version 0 (collected); it returns how many they
// collected. A wait that runs out is noted, not an error: the scenario
// goes on with what was collected.
func (r *run) collect(ctx context.Context) (int, error) {
	// The clients' terminal updates of version 0 must have landed: a
	// running allocation is not collected.
	before, err := r.waitAllocs(ctx, "version 0's allocations to stop", 200*time.Millisecond, nil,
		func(allocs []cluster.AllocStub) bool { return oldRunning(allocs) == 0 })
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		r.res.Notes = append(r.res.Notes, "before the gc: "+err.Error())
	}
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	api, err := r.api(qctx)
	if err == nil {
		err = api.GarbageCollect(qctx)
	}
	cancel()
	if err != nil {
		return 0, err
	}
	after, err := r.waitAllocs(ctx, "version 0's allocations to be collected", 500*time.Millisecond, before,
		func(allocs []cluster.AllocStub) bool { return oldVersion(allocs) == 0 })
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	if err != nil {
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("%d allocation(s) of version 0 not collected: %v", oldVersion(after), err))
	}
	return len(before) - len(after), nil
}

// oldRunning counts the allocations of version 0 the servers hold running.
func oldRunning(allocs []cluster.AllocStub) int {
	n := 0
	for _, a := range allocs {
		if a.JobVersion == 0 && a.ClientStatus == experiment.ClientRunning {
			n++
		}
	}
	return n
}

// oldVersion counts the allocations of version 0.
func oldVersion(allocs []cluster.AllocStub) int {
	n := 0
	for _, a := range allocs {
		if a.JobVersion == 0 {
			n++
		}
	}
	return n
}

// stoppingOn returns an allocation the servers want stopped while it
// still runs (or waits out its shutdown_delay: pending) and that the
// previous poll held wanted (run): its task is being killed, the kill just
// began. ok is false when there is none; wanted collects the allocations
// wanted now, for the next poll.
func stoppingOn(allocs []cluster.AllocStub, wanted map[string]bool) (stopping cluster.AllocStub, ok bool) {
	for _, a := range allocs {
		switch {
		case a.DesiredStatus == "run":
			wanted[a.ID] = true
		case wanted[a.ID] && (a.ClientStatus == experiment.ClientRunning || a.ClientStatus == experiment.ClientPending) && !ok:
			stopping, ok = a, true
		}
	}
	return stopping, ok
}

// shutdownFlush stops a client right after its tasks end, while the
// leader is stalled: it waits until the servers newly want an allocation
// stopped (the deployment stops version 0; the job's tasks are killed
// Fault.ShutdownDelay after that), stalls the leader (SIGSTOP), waits
// until that allocation's client counts the task dead, stops the agent
// (SIGINT) at once, continues the leader once the agent exited or after
// flushStall, and starts the agent again 5 s later. The final statuses
// must reach the servers before the agent exits or once it is back.
//
// The client is the first one on which a stop is seen, not always
// client1: the scheduler places version 0 unevenly (15, 1 and 14
// allocations seen), and a client whose few allocations all stopped in
// the deployment's first batch, before the first poll, never shows one.
func (r *run) shutdownFlush(ctx context.Context) (time.Time, error) {
	names, err := r.nodeNames(ctx)
	if err != nil {
		return time.Time{}, err
	}
	// A stop the servers just decided: one decided earlier may have
	// killed its task already.
	var stopping cluster.AllocStub
	wanted := map[string]bool{}
	err = cluster.WaitFor(ctx, "an allocation being stopped", 2*time.Minute, 100*time.Millisecond, func() (bool, error) {
		allocs, err := r.allocs(ctx)
		var ok bool
		stopping, ok = stoppingOn(allocs, wanted)
		return ok, err
	})
	if err != nil {
		return time.Time{}, err
	}
	name := names[stopping.NodeID]
	agent := r.c.Agent(name)
	if agent == nil {
		return time.Time{}, fmt.Errorf("%s is being stopped on node %s, which no client agent runs", experiment.ShortID(stopping.ID), stopping.NodeID)
	}
	local := agent.Spec.Host.LocalAPI(agent.Spec.HTTPAddr())
	completed := func() (float64, error) {
		qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
		defer cancel()
		m, err := local.Metrics(qctx)
		if err != nil {
			return 0, err
		}
		n, _ := m.Value(metricClientCompleted)
		return n, nil
	}
	before, err := completed()
	if err != nil {
		return time.Time{}, fmt.Errorf("reading %s's metrics: %w", name, err)
	}
	leader, err := r.c.WaitLeader(ctx, time.Minute)
	if err != nil {
		return time.Time{}, err
	}
	if err := leader.Pause(); err != nil {
		return time.Time{}, err
	}
	r.paused = leader
	r.logf("%s is being stopped on %s; leader %s stalled", experiment.ShortID(stopping.ID), name, leader.Spec.Name)
	err = cluster.WaitFor(ctx, name+" to count the task's end", 2*r.fault.ShutdownDelay+10*time.Second, 50*time.Millisecond, func() (bool, error) {
		n, err := completed()
		return n > before, err
	})
	if err != nil {
		_ = leader.Resume()
		r.paused = nil
		return time.Time{}, err
	}
	stopped := make(chan bool, 1)
	go func() { stopped <- agent.Stop(15 * time.Second) }()
	exited, graceful := false, true
	select {
	case graceful = <-stopped:
		exited = true
	case <-time.After(flushStall):
	case <-ctx.Done():
	}
	if err := leader.Resume(); err != nil {
		return time.Time{}, err
	}
	r.paused = nil
	if !exited {
		graceful = <-stopped
	}
	if !graceful {
		r.res.Notes = append(r.res.Notes, name+" did not stop within 15s of SIGINT; killed")
	}
	r.logf("%s stopped right after its task ended, leader continued", name)
	if err := experiment.Sleep(ctx, 5*time.Second); err != nil {
		return time.Time{}, err
	}
	if err := r.c.Restart(agent); err != nil {
		return time.Time{}, err
	}
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s stopped as its task ended (%s being stopped), leader %s stalled meanwhile, started again 5 s later",
		name, experiment.ShortID(stopping.ID), leader.Spec.Name))
	return time.Now(), nil
}

// nodeNames maps the servers' node IDs to the client agents' names.
func (r *run) nodeNames(ctx context.Context) (map[string]string, error) {
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return nil, err
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return nil, fmt.Errorf("listing the nodes: %w", err)
	}
	names := make(map[string]string, len(nodes))
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	return names, nil
}

// waitAllocs polls the servers' allocations every interval, for at most a
// minute, until done holds for them, and returns the last ones read (last
// if none could be read).
func (r *run) waitAllocs(ctx context.Context, what string, interval time.Duration, last []cluster.AllocStub, done func([]cluster.AllocStub) bool) ([]cluster.AllocStub, error) {
	err := cluster.WaitFor(ctx, what, time.Minute, interval, func() (bool, error) {
		allocs, err := r.allocs(ctx)
		if err == nil {
			last = allocs
		}
		return err == nil && done(allocs), err
	})
	return last, err
}
