package scale

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// The simulated nodes' own view of their allocations, as the simulator
// serves it at /v1/state: one definition, in the simstate module that
// sim/nodesim serves it from.
type (
	NodesState = simstate.State
	NodeState  = simstate.NodeState
	AllocState = simstate.AllocState
	TaskState  = simstate.TaskState
)

// Check is the comparison of the servers' view with the nodes'.
type Check struct {
	// Checked counts the allocations both views hold.
	Checked int `json:"checked"`
	// NodesOnly counts the allocations only the nodes hold (the servers
	// garbage-collected them).
	NodesOnly int `json:"nodes_only"`
	// Lost lists the allocations whose last update the servers do not
	// hold: the node reported a state the servers differ from, or the
	// servers hold an allocation running or pending on a node that has no
	// runner for it.
	Lost []string `json:"lost,omitempty"`
	// Unconverged lists the jobs that are not at rest on the servers (all
	// allocations of the new version running and healthy, nothing pending
	// or stopping), with the reason.
	Unconverged []string `json:"unconverged,omitempty"`
}

// OK reports whether nothing was lost, every job converged and at least
// allocs allocations were checked.
func (c Check) OK(allocs int) bool {
	return len(c.Lost) == 0 && len(c.Unconverged) == 0 && c.Checked >= allocs
}

// Compare compares the servers' allocations with the nodes' view;
// unconverged gives, per job, why it is not at rest.
func Compare(servers []cluster.AllocStub, nodes *NodesState, unconverged map[string]string) Check {
	var c Check
	byID := make(map[string]*cluster.AllocStub, len(servers))
	for i := range servers {
		byID[servers[i].ID] = &servers[i]
	}
	held := map[string]map[string]bool{} // node ID -> allocations it runs
	for _, n := range nodes.Nodes {
		held[n.ID] = map[string]bool{}
		for _, a := range n.Allocs {
			held[n.ID][a.ID] = true
			s := byID[a.ID]
			if s == nil {
				c.NodesOnly++
				continue
			}
			c.Checked++
			if diff := differs(s, n.ID, a); diff != "" {
				c.Lost = append(c.Lost, fmt.Sprintf("%s on %s: %s", a.ID, n.Name, diff))
			}
		}
	}
	for _, s := range servers {
		if s.ClientStatus != "running" && s.ClientStatus != "pending" {
			continue
		}
		if runs, ok := held[s.NodeID]; ok && !runs[s.ID] {
			c.Lost = append(c.Lost, fmt.Sprintf("%s: the servers hold it %s on node %s, which has no runner for it", s.ID, s.ClientStatus, s.NodeID))
		}
	}
	for job, why := range unconverged {
		c.Unconverged = append(c.Unconverged, job+": "+why)
	}
	sort.Strings(c.Lost)
	sort.Strings(c.Unconverged)
	return c
}

// differs says how the servers' allocation differs from the node's view of
// it, "" when it does not.
func differs(s *cluster.AllocStub, nodeID string, a AllocState) string {
	var d []string
	if s.NodeID != nodeID {
		d = append(d, "the servers place it on node "+s.NodeID)
	}
	if s.ClientStatus != a.ClientStatus {
		d = append(d, fmt.Sprintf("status: servers %s, node %s", s.ClientStatus, a.ClientStatus))
	}
	var sh *bool
	if s.DeploymentStatus != nil {
		sh = s.DeploymentStatus.Healthy
	}
	if experiment.Health(sh) != experiment.Health(a.Healthy) {
		d = append(d, fmt.Sprintf("health: servers %s, node %s", experiment.Health(sh), experiment.Health(a.Healthy)))
	}
	names := make([]string, 0, len(a.Tasks))
	for name := range a.Tasks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := a.Tasks[name]
		st := s.TaskStates[name]
		if st == nil {
			d = append(d, fmt.Sprintf("task %s: the servers hold no state", name))
			continue
		}
		if st.State != t.State || len(st.Events) != t.Events {
			d = append(d, fmt.Sprintf("task %s: servers %s with %d events, node %s with %d", name, st.State, len(st.Events), t.State, t.Events))
		}
	}
	return strings.Join(d, "; ")
}
