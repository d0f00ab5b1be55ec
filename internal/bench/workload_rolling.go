package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// rolling registers a service job of N allocations (an update block with
// maxParallel, min_healthy_time 2s, task-state health), waits for its
// deployment, changes the task's environment and waits for the rolling
// deployment: the headline scenario (maxParallel 50) and, with maxParallel
// 2 and a few allocations on quiet clients, rolling-small. Figure: the
// rolling deployment, registering to the servers marking it successful.
type rolling struct {
	name        string
	maxParallel int
}

func (r rolling) Name() string    { return r.name }
func (r rolling) Latency() string { return "rolling deployment" }

func (r rolling) jobID() string { return r.name }

func (r rolling) Run(ctx context.Context, env *Env) (WorkloadRun, error) {
	res := WorkloadRun{Name: r.name, N: env.N, Latency: r.Latency(), Figures: map[string]float64{}}
	edges := make([]experiment.Snapshot, 0, 4)
	snap := func() error {
		sn, err := env.Snapshot(ctx)
		if err == nil {
			edges = append(edges, sn)
		}
		return err
	}
	if err := snap(); err != nil {
		return res, err
	}
	var durations []float64
	for version, phase := range []string{experiment.PhaseInitial, experiment.PhaseRolling} {
		d, err := r.deploy(ctx, env, version)
		if err != nil {
			return res, fmt.Errorf("%s deployment: %w", phase, err)
		}
		env.Logf("%s: %s deployment of %d allocations successful in %.1fs", r.name, phase, env.N, d.Seconds())
		durations = append(durations, d.Seconds())
		if err := snap(); err != nil {
			return res, err
		}
	}
	if err := experiment.Sleep(ctx, env.Settle); err != nil {
		return res, err
	}
	if err := snap(); err != nil {
		return res, err
	}
	for i, name := range experiment.Phases {
		p := experiment.Diff(name, edges[i], edges[i+1])
		if i < len(durations) {
			p.Seconds = durations[i]
		}
		res.Phases = append(res.Phases, p)
	}
	res.Seconds = durations[1]
	res.Figures["initial_seconds"] = durations[0]
	// The servers act on each allocation's health (the deployment
	// watcher): allocations placed together on a client could report it
	// in one RPC, once the last of them is healthy.
	var acts []Acted
	for _, a := range env.Watch.Allocs(Job(r.jobID())) {
		if ds := a.Last.DeploymentStatus; ds != nil && ds.Healthy != nil {
			acts = append(acts, Acted{Node: a.Last.NodeID, Group: a.PlacedBy, At: ds.Timestamp})
		}
	}
	res.Figures["healthy_allocations"] = float64(len(acts))
	res.Figures["placement_groups"] = float64(Groups(acts))
	res.Floor = floorOf(acts)
	return res, nil
}

// deploy registers the job's version (0: initial, 1: the env var changed)
// and waits for that version's deployment to be successful. It returns the
// time from registering to seeing it successful (a blocking query: it
// returns as the servers mark it).
func (r rolling) deploy(ctx context.Context, env *Env, version int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, env.Timeout)
	defer cancel()
	start := time.Now()
	if err := env.C.API(ctx).Register(ctx, cluster.ServiceJob(r.jobID(), env.N, version, r.maxParallel)); err != nil {
		return 0, err
	}
	var index uint64 = 1
	var last *cluster.Deployment
	for {
		if err := env.C.CheckAlive(); err != nil {
			return 0, err
		}
		d, next, err := env.C.API(ctx).LatestDeployment(ctx, r.jobID(), index, 5*time.Second)
		if err != nil {
			if ctx.Err() != nil {
				return 0, fmt.Errorf("no successful deployment after %s (last: %+v): %w", env.Timeout, last, ctx.Err())
			}
			return 0, err
		}
		if next > 0 {
			index = next
		}
		if d == nil || d.JobVersion != uint64(version) {
			continue
		}
		last = d
		switch d.Status {
		case cluster.DeploymentSuccessful:
			return time.Since(start), nil
		case cluster.DeploymentRunning, "pending", "paused", "blocked", "initializing", "unblocking":
			continue
		default:
			return 0, fmt.Errorf("deployment %s is %s: %s", d.ID, d.Status, d.StatusDescription)
		}
	}
}
