package nodesim

import (
	"encoding/json"
	"net/http"
	"runtime"
	"sort"
	"sync"

	"github.com/hashicorp/nomad/client"
	"github.com/hashicorp/nomad/client/allocrunner/interfaces"
	"github.com/hashicorp/nomad/client/config"
	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// node is a simulated node: its client and the alloc runners it built.
type node struct {
	name   string
	client *client.Client

	mu      sync.Mutex
	runners map[string]interfaces.AllocRunner
}

func newNode(name string) *node {
	return &node{name: name, runners: map[string]interfaces.AllocRunner{}}
}

// track returns a factory that builds runners with f and records them.
func (n *node) track(f config.AllocRunnerFactory) config.AllocRunnerFactory {
	return func(conf *config.AllocRunnerConfig) (interfaces.AllocRunner, error) {
		ar, err := f(conf)
		if err != nil {
			return nil, err
		}
		n.mu.Lock()
		n.runners[conf.Alloc.ID] = ar
		n.mu.Unlock()
		return ar, nil
	}
}

// The nodes' own view of their allocations, to compare with the servers':
// one definition, in the simstate module nomadfork reads it with.
type (
	State      = simstate.State
	NodeState  = simstate.NodeState
	AllocState = simstate.AllocState
	TaskState  = simstate.TaskState
)

// State returns the nodes' view of the allocations of their alloc runners
// that are not destroyed, and the simulator's figures.
func (s *Simulator) State() *State {
	return s.state(true)
}

// state returns State, without the nodes unless withNodes.
func (s *Simulator) state(withNodes bool) *State {
	st := &State{Nodes: make([]NodeState, 0, len(s.nodes)), Goroutines: runtime.NumGoroutine()}
	if s.rtt != nil {
		st.UpdateAllocRTT = s.rtt.histogram()
	}
	if withNodes {
		for _, n := range s.nodes {
			st.Nodes = append(st.Nodes, n.state())
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st.HeapInuse = ms.HeapInuse
	return st
}

// state returns the node's view of the allocations of its alloc runners
// that are not destroyed.
func (n *node) state() NodeState {
	ns := NodeState{Name: n.name, ID: n.client.NodeID()}
	n.mu.Lock()
	for id, ar := range n.runners {
		if ar.IsDestroyed() {
			delete(n.runners, id)
			continue
		}
		as := ar.AllocState()
		a := AllocState{ID: id, ClientStatus: as.ClientStatus, Tasks: map[string]TaskState{}}
		if ds := as.DeploymentStatus; ds != nil && ds.Healthy != nil {
			healthy := *ds.Healthy
			a.Healthy = &healthy
		}
		for name, ts := range as.TaskStates {
			a.Tasks[name] = TaskState{State: ts.State, Events: len(ts.Events)}
		}
		ns.Allocs = append(ns.Allocs, a)
	}
	n.mu.Unlock()
	sort.Slice(ns.Allocs, func(i, j int) bool { return ns.Allocs[i].ID < ns.Allocs[j].ID })
	return ns
}

// StatePath is the path of the simulator's HTTP API that serves State as
// JSON; with the query nodes=false, without the nodes (the simulator's
// figures alone, quick to read at any time).
const StatePath = "/v1/state"

// Handler serves State as JSON at StatePath.
func (s *Simulator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(StatePath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		withNodes := r.URL.Query().Get("nodes") != "false"
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(s.state(withNodes)); err != nil {
			s.logger.Warn("failed to write the state", "error", err)
		}
	})
	return mux
}
