package scale

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// batchJobID is the batch queue's job.
const batchJobID = "scale-batch"

// BatchResult is the batch queue's figures.
type BatchResult struct {
	// Allocs is the allocations the job asks (BatchWaves × N), Slots how
	// many the fleet fits at a time: the rest queue as a blocked
	// evaluation.
	Allocs int `json:"allocs"`
	Slots  int `json:"slots"`
	// TaskCPU is each task's CPU ask (MHz): more than half the least free
	// node's, so a node fits one.
	TaskCPU int `json:"task_cpu_mhz"`
	// Seconds is the makespan: registering the job to the servers'
	// last change of an allocation seen complete.
	Seconds float64 `json:"makespan_seconds"`
}

// batchTaskCPU returns the CPU ask that fits one task per node on nodes
// whose least free CPU (MHz, the scale jobs' small tasks aside) is free:
// more than half of it.
func batchTaskCPU(free int64) (int, error) {
	if free < 2 {
		return 0, fmt.Errorf("the nodes' free CPU (%d MHz) fits no batch task", free)
	}
	return int(free/2) + 1, nil
}

// batchJob is the batch queue: allocs one-second mock tasks of cpu MHz
// each, never restarted.
func batchJob(allocs, cpu int) *cluster.Job {
	return &cluster.Job{ID: batchJobID, Name: batchJobID, Type: "batch", Datacenters: []string{"dc1"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: allocs,
			RestartPolicy: &cluster.RestartPolicy{Attempts: 0, Interval: time.Hour, Delay: time.Second, Mode: "fail"},
			EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks: []cluster.Task{{Name: "task", Driver: "mock_driver", Config: map[string]any{"run_for": "1s"},
				Resources: &cluster.Resources{CPU: cpu, MemoryMB: 10}, LogConfig: &cluster.LogConfig{MaxFiles: 1, MaxFileSizeMB: 1}}},
		}}}
}

// batchDone counts the complete allocations and returns the servers' last
// change of one (unix nanoseconds); failed is an allocation that failed or
// was lost, "" if none.
func batchDone(allocs []cluster.AllocStub) (complete int, last int64, failed string) {
	for _, a := range allocs {
		switch a.ClientStatus {
		case experiment.ClientComplete:
			complete++
			last = max(last, a.ModifyTime)
		case experiment.ClientFailed, experiment.ClientLost:
			failed = fmt.Sprintf("allocation %s is %s", experiment.ShortID(a.ID), a.ClientStatus)
		}
	}
	return complete, last, failed
}

// batch runs the batch queue and returns its figures.
func (r *run) batch(ctx context.Context) (*BatchResult, error) {
	api := r.c.API(ctx)
	nodes, err := api.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	var free int64 = -1
	slots := 0
	for _, n := range nodes {
		if !simNodeReady(n) {
			continue
		}
		node, err := api.Node(ctx, n.ID)
		if err != nil {
			return nil, fmt.Errorf("reading node %s: %w", n.Name, err)
		}
		if c := node.FreeCPU(); free < 0 || c < free {
			free = c
		}
		slots++
	}
	cpu, err := batchTaskCPU(free)
	if err != nil {
		return nil, err
	}
	res := &BatchResult{Allocs: BatchWaves * r.opts.Nodes, Slots: slots, TaskCPU: cpu}
	start := time.Now()
	if err := api.Register(ctx, batchJob(res.Allocs, cpu)); err != nil {
		return nil, fmt.Errorf("registering %s: %w", batchJobID, err)
	}
	var last int64
	err = cluster.WaitFor(ctx, fmt.Sprintf("%d batch allocations complete", res.Allocs), r.opts.PhaseTimeout, time.Second, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		allocs, err := api.Allocations(ctx, batchJobID)
		if err != nil {
			return false, err
		}
		complete, at, failed := batchDone(allocs)
		if failed != "" {
			return false, fmt.Errorf("batch queue: %s", failed)
		}
		last = at
		return complete >= res.Allocs, nil
	})
	if err != nil {
		return nil, err
	}
	res.Seconds = time.Unix(0, last).Sub(start).Seconds()
	return res, nil
}
