package cluster

import (
	"context"
	"fmt"
	"net/http"
	"os"
)

// AddHost adds a host of its own to a multi-topology cluster, after the
// agents' hosts, for a process that is not a nomad agent (a node
// simulator). Like the others it has no route but its subnet's.
func (c *Cluster) AddHost(ctx context.Context, name string) (*Host, error) {
	if c.Spec.Topology != Multi {
		return nil, fmt.Errorf("host %s: the %s topology has no hosts of their own: use %s", name, c.Spec.Topology, Multi)
	}
	h, err := newHost(ctx, name, len(c.Hosts)+1)
	if err != nil {
		return nil, err
	}
	c.Hosts = append(c.Hosts, h)
	if err := h.CheckIsolated(ctx); err != nil {
		return nil, fmt.Errorf("refusing to use host %s: %w", name, err)
	}
	return h, nil
}

// StartProcess starts argv on host h as a process the cluster stops with
// its agents (SIGINT, then SIGKILL after the grace period): its output goes
// to dir/agent.log. Cluster.Restart is for nomad agents only.
func (c *Cluster) StartProcess(h *Host, name, dir string, argv ...string) (*Agent, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	a := &Agent{Spec: AgentSpec{Name: name, Host: h, Addr: h.Addr, Dir: dir}}
	if err := a.launch(argv...); err != nil {
		return nil, err
	}
	c.Clients = append(c.Clients, a)
	return a, nil
}

// SetSchedulerAlgorithm sets the servers' scheduler algorithm, binpack or
// spread, keeping the rest of the scheduler configuration.
func (c *Client) SetSchedulerAlgorithm(ctx context.Context, algorithm string) error {
	var cur struct {
		SchedulerConfig map[string]any
	}
	if _, err := c.do(ctx, http.MethodGet, "/v1/operator/scheduler/configuration", nil, &cur); err != nil {
		return err
	}
	conf := cur.SchedulerConfig
	if conf == nil {
		conf = map[string]any{}
	}
	conf["SchedulerAlgorithm"] = algorithm
	_, err := c.do(ctx, http.MethodPut, "/v1/operator/scheduler/configuration", conf, nil)
	return err
}
