package scale

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// DrainResult is the drain's figures.
type DrainResult struct {
	// Nodes is how many nodes were drained at once, Allocs the scale
	// jobs' allocations running on them when the drain began.
	Nodes  int `json:"nodes"`
	Allocs int `json:"allocs"`
	// Seconds is the drain time: the first drain request to every
	// drained node done draining and every job's count running and
	// healthy elsewhere.
	Seconds float64 `json:"drain_seconds"`
}

// migrate is the scale jobs' migrate block: a drain moves every
// allocation of a job at once (max_parallel its count), each replacement
// healthy on its task states after the deployments' min_healthy_time.
func (r *run) migrate() *cluster.MigrateStrategy {
	return &cluster.MigrateStrategy{MaxParallel: r.opts.Count(), HealthCheck: "task_states",
		MinHealthyTime: r.opts.MinHealthy, HealthyDeadline: 5 * time.Minute}
}

// drainTargets returns the IDs of the k ready simulated nodes to drain, by
// name, and how many of allocs (the scale jobs' running ones) they hold.
func drainTargets(nodes []cluster.NodeStub, allocs []cluster.AllocStub, k int) (ids []string, held int) {
	var ready []cluster.NodeStub
	for _, n := range nodes {
		if simNodeReady(n) {
			ready = append(ready, n)
		}
	}
	slices.SortFunc(ready, func(a, b cluster.NodeStub) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range ready[:min(k, len(ready))] {
		ids = append(ids, n.ID)
	}
	for _, a := range allocs {
		if a.DesiredStatus == "run" && a.ClientStatus == experiment.ClientRunning && slices.Contains(ids, a.NodeID) {
			held++
		}
	}
	return ids, held
}

// drainDone says why the drain is not done, "" when it is: every drained
// node done draining, and no allocation still on a drained node and not
// terminal.
func drainDone(nodes []cluster.NodeStub, allocs []cluster.AllocStub, drained []string) string {
	for _, n := range nodes {
		if slices.Contains(drained, n.ID) && n.Drain {
			return fmt.Sprintf("node %s is still draining", n.Name)
		}
	}
	for _, a := range allocs {
		if slices.Contains(drained, a.NodeID) && (a.ClientStatus == experiment.ClientRunning || a.ClientStatus == experiment.ClientPending) {
			return fmt.Sprintf("allocation %s is still %s on a drained node", experiment.ShortID(a.ID), a.ClientStatus)
		}
	}
	return ""
}

// drain drains a quarter of the nodes at once and waits until they are
// drained and every job runs its count, healthy, on the other nodes.
func (r *run) drain(ctx context.Context) (*DrainResult, error) {
	api := r.c.API(ctx)
	nodes, err := api.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	allocs, err := r.jobsAllocs(ctx)
	if err != nil {
		return nil, err
	}
	ids, held := drainTargets(nodes, allocs, r.opts.DrainNodes())
	res := &DrainResult{Nodes: len(ids), Allocs: held}
	start := time.Now()
	for _, id := range ids {
		if err := api.Drain(ctx, id, time.Hour); err != nil {
			return nil, fmt.Errorf("draining node %s: %w", experiment.ShortID(id), err)
		}
	}
	err = cluster.WaitFor(ctx, fmt.Sprintf("%d nodes drained, their allocations running elsewhere", len(ids)), r.opts.PhaseTimeout, time.Second, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		nodes, err := api.Nodes(ctx)
		if err != nil {
			return false, err
		}
		allocs, err := r.jobsAllocs(ctx)
		if err != nil {
			return false, err
		}
		if drainDone(nodes, allocs, ids) != "" {
			return false, nil
		}
		for i := 0; i < r.opts.Jobs; i++ {
			var job []cluster.AllocStub
			for _, a := range allocs {
				if a.JobID == jobID(i) {
					job = append(job, a)
				}
			}
			if experiment.Unconverged(job, r.opts.Count(), 1) != "" {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// jobsAllocs reads the servers' allocations of every scale job.
func (r *run) jobsAllocs(ctx context.Context) ([]cluster.AllocStub, error) {
	var out []cluster.AllocStub
	for i := 0; i < r.opts.Jobs; i++ {
		a, err := r.c.API(ctx).Allocations(ctx, jobID(i))
		if err != nil {
			return nil, fmt.Errorf("reading the allocations of %s: %w", jobID(i), err)
		}
		out = append(out, a...)
	}
	return out, nil
}
