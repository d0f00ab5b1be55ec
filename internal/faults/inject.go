package faults

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// inject runs the fault and returns when it ended.
func (r *run) inject(ctx context.Context) (time.Time, error) {
	switch r.fault.Name {
	case "leader-kill":
		leader, err := r.c.WaitLeader(ctx, time.Minute)
		if err != nil {
			return time.Time{}, err
		}
		r.logf("killing the leader %s", leader.Spec.Name)
		leader.Kill()
		next, err := r.c.WaitLeader(ctx, 90*time.Second)
		if err != nil {
			return time.Time{}, fmt.Errorf("no new leader: %w", err)
		}
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("leader %s killed, %s took over", leader.Spec.Name, next.Spec.Name))
		return time.Now(), nil
	case "client-restart":
		a := r.c.Agent(faultedClient)
		r.logf("stopping %s", a.Spec.Name)
		if !a.Stop(15 * time.Second) {
			r.res.Notes = append(r.res.Notes, faultedClient+" did not stop within 15s of SIGINT; killed")
		}
		if err := experiment.Sleep(ctx, 5*time.Second); err != nil {
			return time.Time{}, err
		}
		if err := r.c.Restart(a); err != nil {
			return time.Time{}, err
		}
		r.logf("%s started again on its data dir", a.Spec.Name)
		return time.Now(), nil
	case "partition", "partition-mcd":
		h := r.c.Host(faultedClient)
		r.logf("taking %s's link down", h.Name)
		if err := h.SetLink(ctx, false); err != nil {
			return time.Time{}, err
		}
		var status string
		err := cluster.WaitFor(ctx, "the servers to mark the node down", 3*time.Minute, 500*time.Millisecond, func() (bool, error) {
			s, err := r.nodeStatus(ctx, faultedClient)
			status = s
			return s == "down" || s == "disconnected", err
		})
		// Up again whatever happened: the run goes on or ends cleanly.
		if uerr := h.SetLink(ctx, true); uerr != nil {
			return time.Time{}, errors.Join(err, uerr)
		}
		if err != nil {
			return time.Time{}, err
		}
		r.logf("node %s, link up again", status)
		r.res.Notes = append(r.res.Notes, "the servers marked the node "+status)
		return time.Now(), nil
	case "server-stall":
		leader, err := r.c.WaitLeader(ctx, time.Minute)
		if err != nil {
			return time.Time{}, err
		}
		r.logf("pausing the leader %s for 15s", leader.Spec.Name)
		if err := leader.Pause(); err != nil {
			return time.Time{}, err
		}
		r.paused = leader
		serr := experiment.Sleep(ctx, 15*time.Second)
		if err := leader.Resume(); err != nil {
			return time.Time{}, err
		}
		r.paused = nil
		if serr != nil {
			return time.Time{}, serr
		}
		r.res.Notes = append(r.res.Notes, "leader "+leader.Spec.Name+" paused 15s")
		return time.Now(), nil
	case "snapshot-restore":
		return r.snapshotRestore(ctx)
	case "stale-read":
		return r.staleRead(ctx)
	case "shutdown-flush":
		return r.shutdownFlush(ctx)
	}
	if r.fault.Control || r.fault.Mixed {
		// The control's fault comes after convergence (dropUpdate); the
		// mixed cluster is the scenario.
		return time.Now(), nil
	}
	return time.Time{}, fmt.Errorf("no injection for %s", r.fault.Name)
}

// dropUpdate makes the client lose one update for real: it cuts client1
// off, restarts the tasks of one of its running allocations through the
// agent's own API (reached from inside its host), and stops the agent
// before it can reconnect. The servers never learn of the restart; the
// client's state database holds it. It returns the allocation's ID.
func (r *run) dropUpdate(ctx context.Context) (string, error) {
	allocs, err := r.allocs(ctx)
	if err != nil {
		return "", err
	}
	node, err := r.node(ctx, faultedClient)
	if err != nil {
		return "", err
	}
	nodeID := node.ID
	id := ""
	for _, a := range allocs {
		if a.NodeID == nodeID && a.DesiredStatus == "run" && a.ClientStatus == experiment.ClientRunning {
			id = a.ID
			break
		}
	}
	if id == "" {
		return "", fmt.Errorf("no running allocation on %s", faultedClient)
	}
	agent := r.c.Agent(faultedClient)
	h := agent.Spec.Host
	if err := h.SetLink(ctx, false); err != nil {
		return "", err
	}
	defer func() { _ = h.SetLink(ctx, true) }()
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	local := h.LocalAPI(agent.Spec.HTTPAddr())
	if err := local.RestartAlloc(rctx, id); err != nil {
		return "", fmt.Errorf("restarting %s on %s: %w", experiment.ShortID(id), faultedClient, err)
	}
	// The task runner counts the restart (client.allocs.restart) as it
	// records it in the task state it persists.
	err = cluster.WaitFor(rctx, "the client to count the restart", 30*time.Second, 200*time.Millisecond, func() (bool, error) {
		m, err := local.Metrics(rctx)
		if err != nil {
			return false, err
		}
		n, _ := m.Value(metricClientRestarts)
		return n >= 1, nil
	})
	if err != nil {
		return "", err
	}
	if !agent.Stop(15 * time.Second) {
		r.res.Notes = append(r.res.Notes, faultedClient+" did not stop within 15s of SIGINT; killed")
	}
	r.logf("restarted %s on %s while cut off, then stopped the agent", experiment.ShortID(id), faultedClient)
	return id, nil
}

func (r *run) nodeStatus(ctx context.Context, name string) (string, error) {
	n, err := r.node(ctx, name)
	return n.Status, err
}

// node returns the servers' view of the client node named name.
func (r *run) node(ctx context.Context, name string) (cluster.NodeStub, error) {
	qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return cluster.NodeStub{}, err
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return cluster.NodeStub{}, err
	}
	for _, n := range nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return cluster.NodeStub{}, fmt.Errorf("no node named %s", name)
}
