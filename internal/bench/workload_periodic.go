package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// periodic registers a periodic batch job launched every second with
// prohibit_overlap, whose one task runs 600 ms, and lets it run N seconds:
// a launch is skipped while the servers still hold the previous child
// running. Figure: seconds per launch (N over the children launched; 1.0
// when none is skipped); the skipped launches are reported beside it.
type periodic struct{}

const periodicJob = "periodic"

func (periodic) Name() string    { return periodicJob }
func (periodic) Latency() string { return "seconds per launch" }

func (p periodic) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: p.Name(), N: env.N, Latency: p.Latency(), Figures: map[string]float64{}}
	api := env.C.API(ctx)
	job := &cluster.Job{ID: periodicJob, Name: periodicJob, Type: "batch", Datacenters: []string{"dc1"},
		Periodic: &cluster.Periodic{Enabled: true, SpecType: "cron", Spec: "*/1 * * * * * *", ProhibitOverlap: true},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: 1, RestartPolicy: noRestart,
			EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks:         []cluster.Task{mockTask(map[string]any{"run_for": "600ms"}, 10)},
		}}}
	window := time.Duration(env.N) * time.Second
	var launched int
	var done []AllocRecord
	var err error
	res.Phases, err = env.measure(ctx, func() error {
		if err := api.Register(ctx, job); err != nil {
			return err
		}
		if err := experiment.Sleep(ctx, window); err != nil {
			return err
		}
		// Stop launching; let the children launched finish.
		if err := api.Deregister(ctx, periodicJob, false); err != nil {
			return err
		}
		children, err := api.Jobs(ctx, periodicJob+"/")
		if err != nil {
			return err
		}
		launched = len(children)
		return env.waitWatch(ctx, fmt.Sprintf("the %d launched children complete", launched), func() (bool, error) {
			done = done[:0]
			for _, a := range env.Watch.Allocs(Prefix(periodicJob + "/")) {
				if terminal(a.Last.ClientStatus) {
					done = append(done, a)
				}
			}
			return len(done) >= launched, nil
		})
	})
	if err != nil {
		return res, err
	}
	if launched == 0 {
		return res, fmt.Errorf("no child launched in %s", window)
	}
	var acts []Acted
	for _, a := range done {
		_, finished := taskTimes(a.Last)
		acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: finished})
	}
	res.Seconds = window.Seconds() / float64(launched)
	res.Figures["launched"] = float64(launched)
	res.Figures["skipped"] = float64(max(0, env.N-launched))
	res.Floor = floorOf(acts)
	return res, nil
}
