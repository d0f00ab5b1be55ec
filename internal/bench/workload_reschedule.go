package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// reschedule registers a service job (no deployment) of N allocations
// whose task exits with code 1 after 1 s, without restarts, rescheduled
// once after Nomad's least delay (5 s): every allocation fails and is
// replaced. Figure: failure → servers, the median over the first
// allocations of the time from the task's end (the client's clock) to the
// servers receiving `failed` (their clock; the same machine). The
// replacement is placed 5 s after that.
type reschedule struct{}

const rescheduleJob = "reschedule"

func (reschedule) Name() string    { return rescheduleJob }
func (reschedule) Latency() string { return "task failure → servers p50" }

func (w reschedule) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: w.Name(), N: env.N, Latency: w.Latency(), Figures: map[string]float64{}}
	job := &cluster.Job{ID: rescheduleJob, Name: rescheduleJob, Type: "service", Datacenters: []string{"dc1"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: env.N, Update: &cluster.UpdateStrategy{},
			RestartPolicy: noRestart,
			Reschedule: &cluster.ReschedulePolicy{Attempts: 1, Interval: time.Hour, Delay: 5 * time.Second,
				DelayFunction: "constant", Unlimited: false},
			EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks:         []cluster.Task{mockTask(map[string]any{"run_for": "1s", "exit_code": 1}, 10)},
		}}}
	var failed []AllocRecord
	var err error
	res.Phases, err = env.measure(ctx, func() error {
		if err := env.C.API(ctx).Register(ctx, job); err != nil {
			return err
		}
		return env.waitWatch(ctx, fmt.Sprintf("%d allocations failed and replaced", env.N), func() (bool, error) {
			failed = failed[:0]
			replaced := 0
			for _, a := range env.Watch.Allocs(Job(rescheduleJob)) {
				if a.Last.ClientStatus == experiment.ClientFailed {
					failed = append(failed, a)
				}
				if a.Last.NextAllocation != "" {
					replaced++
				}
			}
			return replaced >= env.N, nil
		})
	})
	if err != nil {
		return res, err
	}
	var lat []float64
	var acts []Acted
	replaced := 0
	for _, a := range failed {
		_, finished := taskTimes(a.Last)
		// The servers act on every failure: a reschedule.
		acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: finished})
		if a.Last.NextAllocation != "" {
			replaced++
			lat = append(lat, a.Terminal.Sub(finished).Seconds())
		}
	}
	if replaced < env.N {
		return res, fmt.Errorf("%d of %d failed allocations were rescheduled", replaced, env.N)
	}
	res.Seconds = percentile(lat, 50)
	res.Figures["rescheduled"] = float64(replaced)
	res.Floor = floorOf(acts)
	return res, nil
}
