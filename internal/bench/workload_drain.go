package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// drain runs a service job of N allocations without a deployment, spread
// over the clients, then drains the client holding most of them (a migrate
// block moving them all at once, task-state health, min_healthy_time 1s).
// The replacements wait for the servers to see the drained allocations
// terminal (the remote previous-allocation watcher). Figure: the drain
// request to the servers receiving the last replacement `running`. The
// drain must finish (the node leaves the draining state); the node is made
// eligible again afterwards.
type drain struct{}

const drainJob = "drain"

func (drain) Name() string    { return drainJob }
func (drain) Latency() string { return "drain → all running elsewhere" }

func (d drain) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: d.Name(), N: env.N, Latency: d.Latency(), Figures: map[string]float64{}}
	api := env.C.API(ctx)
	job := &cluster.Job{ID: drainJob, Name: drainJob, Type: "service", Datacenters: []string{"dc1"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: env.N, Update: &cluster.UpdateStrategy{},
			Migrate: &cluster.MigrateStrategy{MaxParallel: env.N, HealthCheck: "task_states",
				MinHealthyTime: time.Second, HealthyDeadline: 5 * time.Minute},
			RestartPolicy: noRestart, EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks: []cluster.Task{mockTask(map[string]any{"run_for": "1h"}, 10)},
		}}}
	if err := api.Register(ctx, job); err != nil {
		return res, err
	}
	running := func() []AllocRecord {
		var out []AllocRecord
		for _, a := range env.Watch.Allocs(Job(drainJob)) {
			if a.Last.ClientStatus == experiment.ClientRunning && a.Last.DesiredStatus == "run" {
				out = append(out, a)
			}
		}
		return out
	}
	if err := env.waitWatch(ctx, fmt.Sprintf("%d allocations running", env.N), func() (bool, error) {
		return len(running()) >= env.N, nil
	}); err != nil {
		return res, err
	}
	perNode := map[string]int{}
	node := ""
	for _, a := range running() {
		perNode[a.Last.NodeID]++
		if node == "" || perNode[a.Last.NodeID] > perNode[node] {
			node = a.Last.NodeID
		}
	}
	res.Figures["drained_allocations"] = float64(perNode[node])
	var start time.Time
	var err error
	res.Phases, err = env.measure(ctx, func() error {
		start = time.Now()
		if err := api.Drain(ctx, node, time.Hour); err != nil {
			return err
		}
		err := env.waitWatch(ctx, "every allocation running on another client", func() (bool, error) {
			elsewhere := 0
			for _, a := range running() {
				if a.Last.NodeID != node {
					elsewhere++
				}
			}
			return elsewhere >= env.N, nil
		})
		if err != nil {
			return err
		}
		return cluster.WaitFor(ctx, "the drain to finish", env.Timeout, 100*time.Millisecond, func() (bool, error) {
			nodes, err := api.Nodes(ctx)
			for _, n := range nodes {
				if n.ID == node {
					return !n.Drain, err
				}
			}
			return false, err
		})
	})
	if uerr := api.Undrain(ctx, node); uerr != nil && err == nil {
		err = fmt.Errorf("making the drained node eligible again: %w", uerr)
	}
	if err != nil {
		return res, err
	}
	var end time.Time
	var acts []Acted
	for _, a := range env.Watch.Allocs(Job(drainJob)) {
		started, finished := taskTimes(a.Last)
		switch {
		case a.Last.NodeID == node && terminal(a.Last.ClientStatus):
			// The servers act on a drained allocation's end: its
			// replacement waits for it.
			acts = append(acts, Acted{Node: node, Group: "drained", At: finished})
		case a.Last.NodeID != node && !a.Running.IsZero() && a.Running.After(start):
			end = latest(end, a.Running)
			acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: started})
		}
	}
	res.Seconds = end.Sub(start).Seconds()
	res.Floor = floorOf(acts)
	return res, nil
}
