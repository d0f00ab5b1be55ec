package scale

import (
	"context"
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// RTT is the clients' own Node.UpdateAlloc round trip over a span of a run:
// the quantiles of the simulator's histogram of the clients' timer
// (nomad.client.allocations.updates.rpc_time), of the samples counted
// between its readings at the span's edges.
type RTT struct {
	// Phase is the phase, "" for the whole run (every phase).
	Phase string `json:"phase,omitempty"`
	// RPCs is the number of round trips timed.
	RPCs uint64 `json:"rpcs"`
	// P50Ms and P99Ms are their median and 99th percentile, interpolated
	// within a bucket of 10 %; one above the histogram's last bound (63 s)
	// reads as that bound.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// rttBetween is the round trip of the RPCs timed between two readings of
// the histogram; nil when either is missing (a simulator that serves none),
// they are not readings of one histogram, or no RPC was timed (a build
// without the timer).
func rttBetween(phase string, from, to *simstate.Histogram) (*RTT, error) {
	if from == nil || to == nil {
		return nil, nil
	}
	h, err := to.Sub(from)
	if err != nil {
		return nil, fmt.Errorf("round trip histogram: %w", err)
	}
	p50, ok50 := h.Quantile(0.5)
	p99, ok99 := h.Quantile(0.99)
	if !ok50 || !ok99 {
		return nil, nil
	}
	return &RTT{Phase: phase, RPCs: h.Count, P50Ms: p50, P99Ms: p99}, nil
}

// rttFigures are the round trips of the whole run and of each phase, from
// the histogram read at the edges: the phases[i] runs from edges[i] to
// edges[i+1]. A phase without a figure is left out.
func rttFigures(phases []string, edges []*simstate.Histogram) (*RTT, []RTT, error) {
	if len(edges) < 2 {
		return nil, nil, nil
	}
	whole, err := rttBetween("", edges[0], edges[len(edges)-1])
	if err != nil || whole == nil {
		return nil, nil, err
	}
	var per []RTT
	for i, name := range phases {
		if i+1 >= len(edges) {
			break
		}
		p, err := rttBetween(name, edges[i], edges[i+1])
		if err != nil {
			return nil, nil, err
		}
		if p != nil {
			per = append(per, *p)
		}
	}
	return whole, per, nil
}

// rttHistogram reads the simulators' round trip histograms, without their
// nodes, summed over the simulators; nil when one serves none.
func (r *run) rttHistogram(ctx context.Context) (*simstate.Histogram, error) {
	st, err := r.nodesState(ctx, false)
	if err != nil {
		return nil, err
	}
	return st.UpdateAllocRTT, nil
}

// mergeHistograms sums the simulators' round trip histograms; nil when one
// serves none or they differ in bounds.
func mergeHistograms(states []*NodesState) *simstate.Histogram {
	var sum *simstate.Histogram
	for i, st := range states {
		h := st.UpdateAllocRTT
		if h == nil {
			return nil
		}
		if i == 0 {
			sum = h
			continue
		}
		var err error
		if sum, err = sum.Add(h); err != nil {
			return nil
		}
	}
	return sum
}
