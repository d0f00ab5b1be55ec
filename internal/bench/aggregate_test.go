package bench

import (
	"math"
	"testing"
)

// fakeRun makes a successful run with the given headline figures.
func fakeRun(label string, round int, rpcs, raft, initial, rolling float64, fork bool) Run {
	r := Run{Label: label, Round: round, Count: 300}
	for _, name := range Phases {
		p := Phase{Name: name}
		switch name {
		case PhaseInitial:
			p.Seconds, p.UpdateAllocRPCs, p.RaftApplies = initial, rpcs*0.4, raft*0.4
		case PhaseRolling:
			p.Seconds, p.UpdateAllocRPCs, p.RaftApplies = rolling, rpcs*0.6, raft*0.6
		case PhaseSettle:
			p.Seconds = 5
		}
		p.Transitions = 300
		if fork {
			p.ClientRPCs = map[string]float64{"urgent": 10, "tick": 5, "retry": 0}
			p.ClientSent = map[string]float64{"urgent": 100, "typical": 200}
			zero := 0.0
			p.ClientBuffered = &zero
		}
		r.Phases = append(r.Phases, p)
	}
	return r
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

func TestAggregate(t *testing.T) {
	runs := []Run{
		fakeRun("v1.5.3", 1, 200, 260, 12, 26, false),
		fakeRun("fork", 1, 120, 180, 12, 25, true),
		fakeRun("v1.5.3", 2, 210, 250, 13, 27, false),
		fakeRun("fork", 2, 100, 170, 11, 24, true),
		fakeRun("v1.5.3", 3, 190, 270, 11, 25, false),
		fakeRun("fork", 3, 110, 175, 12, 26, true),
	}
	failed := fakeRun("fork", 4, 1, 1, 1, 1, true)
	failed.Error = "boom"
	runs = append(runs, failed)
	sums := Aggregate(runs, []string{"v1.5.3", "fork", "gone"}, map[string]bool{"gone": true}, "v1.5.3")
	if len(sums) != 3 {
		t.Fatalf("%d summaries", len(sums))
	}
	base, fork, gone := sums[0], sums[1], sums[2]
	if base.Runs != 3 || fork.Runs != 3 || fork.Failed != 1 || gone.Runs != 0 || !gone.Variant {
		t.Errorf("runs: %+v %+v %+v", base, fork, gone)
	}
	st := fork.Stats["update_alloc_rpcs"]
	if st.Median != 110 || st.Min != 100 || st.Max != 120 || st.N != 3 {
		t.Errorf("fork rpcs %+v", st)
	}
	if st.Ratio == nil || math.Abs(*st.Ratio-110.0/200) > 1e-9 {
		t.Errorf("fork rpcs ratio %v", st.Ratio)
	}
	if r := base.Stats["rolling_seconds"].Ratio; r == nil || *r != 1 {
		t.Errorf("base ratio %v", r)
	}
	if _, ok := base.Stats["client_rpcs_urgent"]; ok {
		t.Error("upstream has no client RPC split")
	}
	if got := fork.Stats["client_rpcs_urgent"]; got.Median != 30 || got.Ratio != nil {
		t.Errorf("fork urgent RPCs (3 phases × 10) %+v", got)
	}
	if got := fork.Stats["client_status_transitions"]; got.Median != 900 {
		t.Errorf("transitions %+v", got)
	}
}
