package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// simulators are the processes that run a run's simulated nodes: one
// nodesim on a host of its own, or a job's instances on a placement
// cluster's clients.
type simulators interface {
	// memory is the resident memory and its peak (VmHWM), summed over the
	// simulator processes, in bytes.
	memory() (cur, peak uint64, err error)
	// cpu is the simulator processes' CPU, summed.
	cpu(procs experiment.ProcTable) experiment.CPU
	// links are the counters of the simulators' hosts' links, summed.
	links() (cluster.LinkCounters, error)
	// stateURLs are where the simulators serve their nodes' own view.
	stateURLs() []string
}

// processSims is one nodesim process of all the nodes.
type processSims struct{ a *cluster.Agent }

func (p processSims) memory() (cur, peak uint64, err error) { return readRSS(p.a.PID()) }

func (p processSims) cpu(procs experiment.ProcTable) experiment.CPU { return procs.CPUOf(p.a.PID()) }

func (p processSims) links() (cluster.LinkCounters, error) { return p.a.Spec.Host.Counters() }

func (p processSims) stateURLs() []string {
	return []string{fmt.Sprintf("http://%s:%d%s", p.a.Spec.Addr, statePort, statePath)}
}

// readState reads one simulator's view of its nodes.
func readState(ctx context.Context, url string) (*NodesState, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading the nodes' state: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading the nodes' state at %s: %s", url, resp.Status)
	}
	var st NodesState
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil, fmt.Errorf("decoding the nodes' state at %s: %w", url, err)
	}
	return &st, nil
}

// mergeStates joins the simulators' views: every node, the heaps,
// goroutines and round trip histograms summed.
func mergeStates(states []*NodesState) *NodesState {
	out := &NodesState{UpdateAllocRTT: mergeHistograms(states)}
	for _, st := range states {
		out.Nodes = append(out.Nodes, st.Nodes...)
		out.HeapInuse += st.HeapInuse
		out.Goroutines += st.Goroutines
	}
	return out
}
