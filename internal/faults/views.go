package faults

import (
	"encoding/json"
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// ServerView turns the servers' allocation list into the checker's view;
// nodeNames maps node IDs to client agent names.
func ServerView(allocs []cluster.AllocStub, nodeNames map[string]string) []ServerAlloc {
	out := make([]ServerAlloc, 0, len(allocs))
	for _, a := range allocs {
		s := ServerAlloc{
			ID: a.ID, Name: a.Name, Node: nodeNames[a.NodeID], JobVersion: a.JobVersion,
			DesiredStatus: a.DesiredStatus, ClientStatus: a.ClientStatus,
			Tasks: map[string]TaskView{},
		}
		if s.Node == "" {
			s.Node = a.NodeID
		}
		if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
			h := *a.DeploymentStatus.Healthy
			s.Healthy = &h
		}
		for name, t := range a.TaskStates {
			if t != nil {
				s.Tasks[name] = taskView(*t)
			}
		}
		out = append(out, s)
	}
	return out
}

func taskView(t cluster.TaskState) TaskView {
	v := TaskView{State: t.State, Failed: t.Failed, Restarts: t.Restarts}
	for _, e := range t.Events {
		if e == nil {
			continue
		}
		switch e.Type {
		case eventStarted:
			v.Starts++
		case eventFailedRestore:
			v.FailedRestores++
		}
	}
	return v
}

// clientStateDump is the JSON `nomad operator client-state <dir>` prints:
// the client's state database, every allocation with its deployment
// status and, for each task that has a driver handle, its task state.
type clientStateDump struct {
	Allocations map[string]struct {
		DeployStatus *cluster.AllocDeploymentStatus
		Tasks        map[string]struct {
			RemoteState *cluster.TaskState
		}
	}
}

// ParseClientState reads the output of `nomad operator client-state`.
func ParseClientState(data []byte) (ClientView, error) {
	var d clientStateDump
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("decoding the client state: %w", err)
	}
	if d.Allocations == nil {
		return nil, fmt.Errorf("the client state has no Allocations")
	}
	view := ClientView{}
	for id, a := range d.Allocations {
		c := ClientAlloc{ID: id, Tasks: map[string]TaskView{}}
		if a.DeployStatus != nil && a.DeployStatus.Healthy != nil {
			h := *a.DeployStatus.Healthy
			c.Healthy = &h
		}
		for name, t := range a.Tasks {
			if t.RemoteState != nil {
				c.Tasks[name] = taskView(*t.RemoteState)
			}
		}
		view[id] = c
	}
	return view, nil
}
