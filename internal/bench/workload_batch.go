package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// batchQueue registers a batch job of N one-second tasks on clients that
// fit a third of them at a time (each task asks for a share of a client's
// CPU), so allocations queue as blocked evaluations and are placed as
// earlier ones complete. Figure: the makespan, registering to the servers
// receiving the last `complete`.
type batchQueue struct{}

const batchJob = "batch-queue"

func (batchQueue) Name() string    { return batchJob }
func (batchQueue) Latency() string { return "makespan" }

// batchSlots is how many of N allocations one of clients clients fits:
// the clients fit a third of them at a time.
func batchSlots(n, clients int) int {
	return max(1, n/(3*clients))
}

func (b batchQueue) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: b.Name(), N: env.N, Latency: b.Latency(), Figures: map[string]float64{}}
	api := env.C.API(ctx)
	nodes, err := api.Nodes(ctx)
	if err != nil {
		return res, err
	}
	var free int64 = -1
	for _, n := range nodes {
		node, err := api.Node(ctx, n.ID)
		if err != nil {
			return res, err
		}
		if c := node.FreeCPU(); free < 0 || c < free {
			free = c
		}
	}
	slots := batchSlots(env.N, len(env.C.Clients))
	cpu := int(free) / slots
	if cpu < 1 {
		return res, fmt.Errorf("the clients' CPU (%d MHz) is too small for %d allocations each", free, slots)
	}
	res.Figures["slots"] = float64(slots * len(nodes))
	job := &cluster.Job{ID: batchJob, Name: batchJob, Type: "batch", Datacenters: []string{"dc1"},
		TaskGroups: []cluster.TaskGroup{{
			Name: "mock", Count: env.N, RestartPolicy: noRestart,
			EphemeralDisk: &cluster.EphemeralDisk{SizeMB: 10},
			Tasks:         []cluster.Task{mockTask(map[string]any{"run_for": "1s"}, cpu)},
		}}}
	var start time.Time
	var done []AllocRecord
	res.Phases, err = env.measure(ctx, func() error {
		start = time.Now()
		if err := api.Register(ctx, job); err != nil {
			return err
		}
		return env.waitWatch(ctx, fmt.Sprintf("%d allocations complete", env.N), func() (bool, error) {
			var err error
			done, err = env.complete(Job(batchJob))
			return err == nil && len(done) >= env.N, err
		})
	})
	if err != nil {
		return res, err
	}
	var end time.Time
	var acts []Acted
	for _, a := range done {
		end = latest(end, a.Terminal)
		_, finished := taskTimes(a.Last)
		acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: finished})
	}
	res.Seconds = end.Sub(start).Seconds()
	res.Floor = floorOf(acts)
	blocked := env.Watch.Blocked(Job(batchJob))
	res.Figures["blocked_evals"] = float64(blocked)
	if blocked == 0 {
		return res, fmt.Errorf("no allocation queued: no blocked evaluation in %d allocations on %d slots", env.N, slots*len(nodes))
	}
	return res, nil
}
