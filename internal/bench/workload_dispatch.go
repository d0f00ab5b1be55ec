package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// dispatch registers a parameterized batch job of one 200 ms task and
// dispatches it N times in a burst (4 at a time). Figure: dispatch →
// complete, the median over the dispatches of the time from asking for the
// dispatch to the servers receiving its allocation's `complete`; the 95th
// percentile is reported beside it.
type dispatch struct{}

const dispatchJob = "dispatch"

func (dispatch) Name() string    { return dispatchJob }
func (dispatch) Latency() string { return "dispatch → complete p50" }

func (d dispatch) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: d.Name(), N: env.N, Latency: d.Latency(), Figures: map[string]float64{}}
	api := env.C.API(ctx)
	job := &cluster.Job{ID: dispatchJob, Name: dispatchJob, Type: "batch", Datacenters: []string{"dc1"},
		ParameterizedJob: &cluster.ParameterizedJob{Payload: "forbidden"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: 1, RestartPolicy: noRestart,
			EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks:         []cluster.Task{mockTask(map[string]any{"run_for": "200ms"}, 10)},
		}}}
	if err := api.Register(ctx, job); err != nil {
		return res, err
	}
	asked := map[string]time.Time{} // child job → when its dispatch was asked for
	var mu sync.Mutex
	var done []AllocRecord
	var err error
	res.Phases, err = env.measure(ctx, func() error {
		work := make(chan struct{})
		errs := make(chan error, env.N)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range work {
					t := time.Now()
					child, err := api.Dispatch(ctx, dispatchJob)
					if err != nil {
						errs <- err
						continue
					}
					mu.Lock()
					asked[child] = t
					mu.Unlock()
				}
			}()
		}
		for range env.N {
			work <- struct{}{}
		}
		close(work)
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return fmt.Errorf("dispatching: %w", err)
		}
		return env.waitWatch(ctx, fmt.Sprintf("%d dispatched allocations complete", env.N), func() (bool, error) {
			var err error
			done, err = env.complete(Prefix(dispatchJob + "/"))
			return err == nil && len(done) >= env.N, err
		})
	})
	if err != nil {
		return res, err
	}
	var lat []float64
	var acts []Acted
	for _, a := range done {
		t0, ok := asked[a.Last.JobID]
		if !ok {
			return res, fmt.Errorf("allocation %s of %s, a job not dispatched here", a.Last.ID, a.Last.JobID)
		}
		lat = append(lat, a.Terminal.Sub(t0).Seconds())
		_, finished := taskTimes(a.Last)
		acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: finished})
	}
	res.Seconds = percentile(lat, 50)
	res.Figures["p95_seconds"] = percentile(lat, 95)
	res.Figures["completed"] = float64(len(done))
	res.Floor = floorOf(acts)
	return res, nil
}
