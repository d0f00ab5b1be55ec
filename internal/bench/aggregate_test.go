package bench

import (
	"math"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// fakeWorkload makes a successful workload result with the given figures.
func fakeWorkload(name string, latency, rpcs, raft, cpu, floor float64) WorkloadRun {
	return WorkloadRun{Name: name, N: 10, Latency: "fake latency", Seconds: latency, Floor: &floor,
		Figures: map[string]float64{"p95_seconds": latency * 2},
		Phases: []experiment.Phase{
			{Name: "a", UpdateAllocRPCs: rpcs * 0.4, RaftApplies: raft * 0.4, ServerCPU: cpu / 2},
			{Name: "b", UpdateAllocRPCs: rpcs * 0.6, RaftApplies: raft * 0.6, ServerCPU: cpu / 2},
		}}
}

// fakeRun makes a successful run of two workloads: "alpha" with the
// given figures, "beta" with twice the latency.
func fakeRun(label, topo string, round int, latency, rpcs float64) RoundRun {
	return RoundRun{Label: label, Round: round, Topology: topo, Workloads: []WorkloadRun{
		fakeWorkload("alpha", latency, rpcs, rpcs*1.5, 1, 10),
		fakeWorkload("beta", 2*latency, rpcs, rpcs*1.5, 1, 20),
	}}
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

func TestPercentile(t *testing.T) {
	vs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if got := percentile(vs, 50); got != 5 {
		t.Errorf("p50 %v", got)
	}
	if got := percentile(vs, 95); got != 10 {
		t.Errorf("p95 %v", got)
	}
	if got := percentile([]float64{7}, 95); got != 7 {
		t.Errorf("p95 of one %v", got)
	}
}

func TestAggregate(t *testing.T) {
	runs := []RoundRun{
		fakeRun("v1.5.3", "single", 1, 10, 200),
		fakeRun("fork", "single", 1, 9, 120),
		fakeRun("v1.5.3", "single", 2, 12, 210),
		fakeRun("fork", "single", 2, 11, 100),
		fakeRun("v1.5.3", "single", 3, 11, 190),
		fakeRun("fork", "single", 3, 30, 110),
		fakeRun("v1.5.3", "multi", 1, 100, 1000),
		fakeRun("fork", "multi", 1, 50, 500),
	}
	// A run that printed no result (its sandbox killed) fails in every
	// workload.
	failed := RoundRun{Label: "fork", Topology: "single", Round: 4, Error: "the run did not end within 1h"}
	runs = append(runs, failed)
	wfail := fakeRun("fork", "single", 5, 1, 1)
	wfail.Workloads[1].Error = "nothing queued"
	runs = append(runs, wfail)
	tables := Aggregate(runs, []string{"single", "multi"}, []string{"alpha", "beta"},
		[]string{"v1.5.3", "fork", "gone"}, map[string]bool{"gone": true}, "v1.5.3")
	if len(tables) != 4 || tables[0].Workload != "alpha" || tables[1].Workload != "beta" || tables[2].Topology != "multi" {
		t.Fatalf("tables %+v", tables)
	}
	alpha, beta := tables[0], tables[1]
	base, fork, gone := alpha.Label("v1.5.3"), alpha.Label("fork"), alpha.Label("gone")
	// The run without a result counts as failed in both workloads; the run
	// whose beta failed counts in alpha.
	if base.Runs != 3 || fork.Runs != 4 || fork.Failed != 1 || gone.Runs != 0 || !gone.Variant {
		t.Errorf("runs: %+v %+v %+v", base, fork, gone)
	}
	if b := beta.Label("fork"); b.Runs != 3 || b.Failed != 2 {
		t.Errorf("beta fork: %+v", b)
	}
	st := fork.Stats["update_alloc_rpcs"]
	if st.Median != 105 || st.Min != 1 || st.Max != 120 || st.N != 4 {
		t.Errorf("fork rpcs %+v", st)
	}
	if st.Ratio == nil || math.Abs(*st.Ratio-105.0/200) > 1e-9 {
		t.Errorf("fork rpcs ratio %v", st.Ratio)
	}
	if r := base.Stats["seconds"].Ratio; r == nil || *r != 1 {
		t.Errorf("base ratio %v", r)
	}
	if got := fork.Stats["server_cpu_seconds"]; got.Median != 1 {
		t.Errorf("server CPU summed over phases: %+v", got)
	}
	if got := fork.Stats["p95_seconds"]; got.N != 4 || got.Ratio == nil {
		t.Errorf("extra figure %+v", got)
	}
	if alpha.Floor == nil || alpha.Floor.Median != 10 || alpha.Floor.N != 7 || alpha.Latency != "fake latency" || alpha.N != 10 {
		t.Errorf("alpha floor %+v, latency %q", alpha.Floor, alpha.Latency)
	}
	// Ratios are to the base of the same topology.
	if r := tables[2].Label("fork").Stats["seconds"].Ratio; r == nil || *r != 0.5 {
		t.Errorf("multi ratio %v", r)
	}
}
