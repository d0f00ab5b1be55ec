package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// waitDeployment waits until the job version's deployment is successful.
func (r *run) waitDeployment(ctx context.Context, version uint64, timeout time.Duration) error {
	return experiment.Deploys{C: r.c, API: r.api}.Wait(ctx, []string{JobID}, version, timeout)
}

// waitRolling waits until the rolling deployment is under way: an
// allocation of the new version runs.
func (r *run) waitRolling(ctx context.Context) error {
	return cluster.WaitFor(ctx, "the rolling deployment to start", 2*time.Minute, 200*time.Millisecond, func() (bool, error) {
		allocs, err := r.allocs(ctx)
		if err != nil {
			return false, err
		}
		for _, a := range allocs {
			if a.JobVersion == 1 && a.ClientStatus == experiment.ClientRunning {
				return true, nil
			}
		}
		return false, nil
	})
}

func (r *run) allocs(ctx context.Context) ([]cluster.AllocStub, error) {
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return nil, err
	}
	return api.Allocations(qctx, JobID)
}

// waitConverged waits until the servers' view is at rest: the new
// version's deployment successful, Count allocations of it running and
// healthy, none pending or unknown, none stopping that still runs, every
// client's node ready.
func (r *run) waitConverged(ctx context.Context, since time.Time) error {
	remaining := max(r.opts.ConvergeTimeout, r.fault.MinConverge) - time.Since(since)
	if remaining <= 0 {
		remaining = time.Second
	}
	var why string
	err := cluster.WaitFor(ctx, "convergence", remaining, 500*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		w, err := r.unconverged(ctx)
		why = w
		return err == nil && w == "", err
	})
	if err != nil && why != "" {
		return fmt.Errorf("%w (%s)", err, why)
	}
	return err
}

// unconverged says why the servers' view is not at rest, "" when it is.
func (r *run) unconverged(ctx context.Context) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return "", err
	}
	d, _, err := api.LatestDeployment(qctx, JobID, 0, 0)
	if err != nil {
		return "", err
	}
	if d == nil || d.JobVersion != 1 {
		return "the deployment is not successful yet", nil
	}
	if ok, err := experiment.DeploymentDone(d); !ok {
		return "the deployment is not successful yet", err
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return "", err
	}
	for _, n := range nodes {
		if n.Status != "ready" {
			return fmt.Sprintf("node %s is %s", n.Name, n.Status), nil
		}
	}
	allocs, err := api.Allocations(qctx, JobID)
	if err != nil {
		return "", err
	}
	return experiment.Unconverged(allocs, r.count(), 1), nil
}
