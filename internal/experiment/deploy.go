package experiment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// QueryTimeout bounds one question to one agent. On a loaded machine
// (load averages of 50 and more on 2 cores, as when a benchmark runs next
// door) servers take seconds to answer; the waits around the questions
// bound the scenario.
const QueryTimeout = 15 * time.Second

// ErrDeploymentEnded is the error of a deployment that failed or was
// cancelled.
var ErrDeploymentEnded = errors.New("deployment ended")

// DeploymentDone reports whether the deployment d is successful; the
// error wraps ErrDeploymentEnded when it failed or was cancelled.
func DeploymentDone(d *cluster.Deployment) (bool, error) {
	switch d.Status {
	case cluster.DeploymentSuccessful:
		return true, nil
	case "failed", "cancelled":
		return false, fmt.Errorf("%w: deployment %s is %s: %s", ErrDeploymentEnded, d.ID, d.Status, d.StatusDescription)
	}
	return false, nil
}

// Deploys is the one deploy/wait of the experiments: it waits until the
// latest deployment of every job is of the version and successful,
// asking a server API picks, and checking that c's agents still run.
type Deploys struct {
	C *cluster.Cluster
	// API returns the server to ask (nil: C.API, the leader).
	API      func(ctx context.Context) (*cluster.Client, error)
	Interval time.Duration // 500 ms when 0
}

// Wait waits until the latest deployment of each of jobs is of version and
// successful, for at most timeout. A deployment that failed or was
// cancelled ends the wait with an error wrapping ErrDeploymentEnded.
func (w Deploys) Wait(ctx context.Context, jobs []string, version uint64, timeout time.Duration) error {
	interval := w.Interval
	if interval == 0 {
		interval = 500 * time.Millisecond
	}
	what := fmt.Sprintf("a successful deployment of job version %d", version)
	if len(jobs) != 1 {
		what = fmt.Sprintf("%d successful deployments of version %d", len(jobs), version)
	}
	done := map[string]bool{}
	var last string
	var ended error
	err := cluster.WaitFor(ctx, what, timeout, interval, func() (bool, error) {
		if err := w.C.CheckAlive(); err != nil {
			return false, err
		}
		qctx, cancel := context.WithTimeout(ctx, QueryTimeout)
		defer cancel()
		api, err := w.api(qctx)
		if err != nil {
			return false, err
		}
		for _, id := range jobs {
			if done[id] {
				continue
			}
			d, _, err := api.LatestDeployment(qctx, id, 0, 0)
			if err != nil {
				return false, err
			}
			if d == nil || d.JobVersion != version {
				continue
			}
			last = fmt.Sprintf("%s: %s %s", id, d.Status, d.StatusDescription)
			ok, err := DeploymentDone(d)
			if err != nil {
				ended = fmt.Errorf("%s: %w", id, err)
				return true, nil
			}
			if ok {
				done[id] = true
			}
		}
		return len(done) == len(jobs), nil
	})
	if err != nil {
		return fmt.Errorf("%w (%d of %d successful; last: %s)", err, len(done), len(jobs), last)
	}
	return ended
}

func (w Deploys) api(ctx context.Context) (*cluster.Client, error) {
	if w.API != nil {
		return w.API(ctx)
	}
	return w.C.API(ctx), nil
}

// Sleep waits d, or until ctx ends (its error).
func Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
