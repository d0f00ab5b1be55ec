package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// noDeploy registers a service job of N allocations with `update {
// max_parallel = 0 }`, so no deployment (without an update block Nomad
// applies its default strategy and makes one). Figure: registering to the
// servers receiving the last first `running`.
type noDeploy struct{}

const noDeployJob = "no-deploy"

func (noDeploy) Name() string    { return noDeployJob }
func (noDeploy) Latency() string { return "submit → all running" }

func (w noDeploy) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: w.Name(), N: env.N, Latency: w.Latency(), Figures: map[string]float64{}}
	job := &cluster.Job{ID: noDeployJob, Name: noDeployJob, Type: "service", Datacenters: []string{"dc1"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: env.N, Update: &cluster.UpdateStrategy{},
			RestartPolicy: noRestart, EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks: []cluster.Task{mockTask(map[string]any{"run_for": "1h"}, 10)},
		}}}
	var start time.Time
	var running []AllocRecord
	var err error
	res.Phases, err = env.measure(ctx, func() error {
		start = time.Now()
		if err := env.C.API(ctx).Register(ctx, job); err != nil {
			return err
		}
		return env.waitWatch(ctx, fmt.Sprintf("%d allocations running", env.N), func() (bool, error) {
			running = running[:0]
			for _, a := range env.Watch.Allocs(Job(noDeployJob)) {
				if !a.Running.IsZero() {
					running = append(running, a)
				}
			}
			return len(running) >= env.N, nil
		})
	})
	if err != nil {
		return res, err
	}
	var end time.Time
	var acts []Acted
	for _, a := range running {
		end = latest(end, a.Running)
		started, _ := taskTimes(a.Last)
		acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: started})
	}
	res.Seconds = end.Sub(start).Seconds()
	res.Floor = floorOf(acts)
	return res, nil
}
