package scale

import (
	"math"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// TestRTTFigures computes the round trip quantiles from the differences of
// the histogram read at the phase edges: the run's from the first and last
// readings, each phase's from its own edges.
func TestRTTFigures(t *testing.T) {
	bounds := []float64{1, 2, 4, 8}
	h := func(count uint64, counts ...uint64) *simstate.Histogram {
		return &simstate.Histogram{BoundsMs: bounds, Counts: counts, Count: count}
	}
	phases := []string{experiment.PhaseInitial, experiment.PhaseRolling, experiment.PhaseSettle}
	for _, tc := range []struct {
		name    string
		edges   []*simstate.Histogram
		whole   *RTT
		per     []RTT
		wantErr bool
	}{
		{
			name: "per phase and whole",
			// before: 10 RPCs ≤ 1 ms (not the run's); initial: 100 RPCs,
			// 50 ≤ 1 ms, 40 ≤ 2 ms, 10 ≤ 4 ms; rolling: 100 ≤ 8 ms; settle: none
			edges: []*simstate.Histogram{h(10, 10, 10, 10, 10), h(110, 60, 100, 110, 110), h(210, 60, 100, 110, 210), h(210, 60, 100, 110, 210)},
			whole: &RTT{RPCs: 200, P50Ms: 4, P99Ms: 4 + 4*(198-100)/100.0},
			per: []RTT{
				{Phase: experiment.PhaseInitial, RPCs: 100, P50Ms: 1, P99Ms: 2 + 2*(99-90)/10.0},
				{Phase: experiment.PhaseRolling, RPCs: 100, P50Ms: 6, P99Ms: 4 + 4*0.99},
			},
		},
		{
			name:  "above the last bound",
			edges: []*simstate.Histogram{h(0, 0, 0, 0, 0), h(100, 0, 0, 0, 90), h(100, 0, 0, 0, 90), h(100, 0, 0, 0, 90)},
			whole: &RTT{RPCs: 100, P50Ms: 4 + 4*50/90.0, P99Ms: 8},
			per:   []RTT{{Phase: experiment.PhaseInitial, RPCs: 100, P50Ms: 4 + 4*50/90.0, P99Ms: 8}},
		},
		{
			name:  "no RPC timed: a build without the timer",
			edges: []*simstate.Histogram{h(0, 0, 0, 0, 0), h(0, 0, 0, 0, 0), h(0, 0, 0, 0, 0), h(0, 0, 0, 0, 0)},
		},
		{
			name:  "a simulator that serves no histogram",
			edges: []*simstate.Histogram{nil, nil, nil, nil},
		},
		{
			name:  "a reading missing at the end",
			edges: []*simstate.Histogram{h(0, 0, 0, 0, 0), h(1, 1, 1, 1, 1), h(1, 1, 1, 1, 1), nil},
		},
		{
			name:    "not one histogram (a simulator restarted)",
			edges:   []*simstate.Histogram{h(5, 5, 5, 5, 5), h(1, 1, 1, 1, 1), h(1, 1, 1, 1, 1), h(2, 2, 2, 2, 2)},
			wantErr: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, per, err := rttFigures(phases, tc.edges)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want an error: %v", err, tc.wantErr)
			}
			if !rttEqual(whole, tc.whole) {
				t.Errorf("whole run %+v, want %+v", whole, tc.whole)
			}
			if len(per) != len(tc.per) {
				t.Fatalf("phases %+v, want %+v", per, tc.per)
			}
			for i := range per {
				if !rttEqual(&per[i], &tc.per[i]) {
					t.Errorf("phase %d: %+v, want %+v", i, per[i], tc.per[i])
				}
			}
		})
	}
}

func rttEqual(a, b *RTT) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Phase == b.Phase && a.RPCs == b.RPCs &&
		math.Abs(a.P50Ms-b.P50Ms) < 1e-9 && math.Abs(a.P99Ms-b.P99Ms) < 1e-9
}

// TestMergeHistograms sums the instances' histograms; one instance without
// one leaves the sum out.
func TestMergeHistograms(t *testing.T) {
	a := &simstate.Histogram{BoundsMs: []float64{1, 2}, Counts: []uint64{1, 2}, Count: 2}
	b := &simstate.Histogram{BoundsMs: []float64{1, 2}, Counts: []uint64{3, 3}, Count: 4}
	got := mergeHistograms([]*NodesState{{UpdateAllocRTT: a}, {UpdateAllocRTT: b}})
	if got == nil || got.Count != 6 || got.Counts[0] != 4 || got.Counts[1] != 5 {
		t.Errorf("merged %+v", got)
	}
	if got := mergeHistograms([]*NodesState{{UpdateAllocRTT: a}, {}}); got != nil {
		t.Errorf("merged with an instance without a histogram: %+v", got)
	}
}
