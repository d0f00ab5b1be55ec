package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

func fakeReport() *Report {
	var runs []RoundRun
	for _, topo := range []string{"single", "multi"} {
		runs = append(runs,
			fakeRun("v1.5.3", topo, 1, 10, 200),
			fakeRun("fork", topo, 1, 9, 120),
			fakeRun("v1.6.1", topo, 1, 10, 107),
			fakeRun("seed", topo, 1, 12, 100),
		)
	}
	r := &Report{Rounds: 1, Runs: runs, Base: "v1.5.3", Fork: "fork", Ref: "v1.6.1", Clients: 3,
		Workloads: []string{"alpha", "beta"}, Sizes: Sizes{"alpha": 10, "beta": 10}, Topologies: []string{"single", "multi"},
		Binaries: []experiment.Binary{
			{Label: "v1.5.3", Path: "/b/v1.5.3/nomad", Source: "0690e6c70451deadbeef", Version: "Nomad v1.5.3"},
			{Label: "fork", Path: "/b/fork/nomad", Source: "1234567890abcdef"},
			{Label: "v1.6.1", Path: "/b/v1.6.1/nomad", Source: "abcdef"},
			{Label: "seed", Path: "/tmp/seed", Source: "external", Variant: true},
		}}
	r.Tables = Aggregate(runs, r.Topologies, r.Workloads, []string{"v1.5.3", "fork", "v1.6.1", "seed"}, map[string]bool{"seed": true}, "v1.5.3")
	r.Goals = Goals(r)
	return r
}

func TestWriteTable(t *testing.T) {
	r := fakeReport()
	var b bytes.Buffer
	WriteTable(&b, r, r.Table("alpha", "multi"))
	out := b.String()
	for _, want := range []string{
		"alpha (N=10), multi topology (3 server(s), 3 clients): latency = fake latency",
		"seed*",
		"UpdateAlloc RPCs",
		"0.60", // fork RPCs 120/200
		"9.00",
		"floor              4", // 4 runs
		"p95_seconds: v1.5.3 20.00; fork 18.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestGoalsAndSummary(t *testing.T) {
	r := fakeReport()
	if len(r.Goals) != 16 {
		t.Fatalf("%d goals, want 2 per table (4) for the fork and the variant", len(r.Goals))
	}
	met := map[string]bool{}
	for _, g := range r.Goals {
		if g.Met == nil {
			t.Fatalf("goal %+v not evaluated", g)
		}
		met[g.Label+"/"+g.Workload+"/"+g.Topology+"/"+g.Figure] = *g.Met
	}
	for what, want := range map[string]bool{
		"fork/alpha/single/latency": true,  // 9 vs 10
		"fork/alpha/single/rpcs":    false, // 120 vs 107
		"seed/beta/multi/latency":   false, // 24 vs 20
		"seed/beta/multi/rpcs":      true,  // 100 vs 107
	} {
		if met[what] != want {
			t.Errorf("%s: met %v, want %v", what, met[what], want)
		}
	}
	var b bytes.Buffer
	WriteSummary(&b, r)
	WriteGoals(&b, r)
	for _, want := range []string{
		"alpha          single      1.00 / 1.00    0.90 / 0.60!     1.00 / 0.54    1.20! / 0.50      0.05",
		"fork latency ≤ 1.00 × v1.5.3: met in 4 of 4",
		"fork Node.UpdateAlloc RPCs ≤ v1.6.1's: met in 0 of 4; MISSED: alpha/single 1.12",
		"seed latency ≤ 1.00 × v1.5.3: met in 0 of 4",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if Goals(&Report{}) != nil {
		t.Error("goals without tables")
	}
}

func TestWriteRounds(t *testing.T) {
	r := fakeReport()
	r.Cores = 2
	other := 0.5
	r.Runs[0].LoadAvg = []float64{1.5, 1.9}
	r.Runs[0].OtherCores = &other
	var b bytes.Buffer
	WriteRounds(&b, r)
	if !strings.Contains(b.String(), "load 1.9, others 0.50 cores\n") {
		t.Errorf("rounds:\n%s", b.String())
	}
	r.Runs[2].LoadAvg = []float64{7}
	b.Reset()
	WriteRounds(&b, r)
	if !strings.Contains(b.String(), "load 7.0, others 0.50 cores  WARNING: load above the 2 cores") {
		t.Errorf("no warning:\n%s", b.String())
	}
}

// roundTrip writes r as JSON and reads it back.
func roundTrip(t *testing.T, r *Report) *Report {
	t.Helper()
	file := filepath.Join(t.TempDir(), "bench.json")
	if err := r.WriteJSON(file); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestWriteResultsFrom writes a report's results, then redraws them from
// the JSON alone (-from): the same tables and summary.
func TestWriteResultsFrom(t *testing.T) {
	r := fakeReport()
	dir := t.TempDir()
	var first bytes.Buffer
	if err := WriteResults(r, dir, &first); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(filepath.Join(dir, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 8 || got.Table("beta", "multi") == nil {
		t.Fatalf("round trip lost data: %d runs", len(got.Runs))
	}
	var again bytes.Buffer
	if err := WriteResults(got, dir, &again); err != nil {
		t.Fatal(err)
	}
	if first.String() != again.String() {
		t.Errorf("redrawn differs:\n%s\n---\n%s", first.String(), again.String())
	}
	for _, f := range []string{"table.txt", "summary-latency.png", "summary-rpcs.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestReadReportBeforeSuite reads a report of the rolling scenario
// written before the workload suite: its runs become the rolling
// workload's.
func TestReadReportBeforeSuite(t *testing.T) {
	old := `{"count": 300, "rounds": 1, "topology": "multi", "base": "v1.5.3",
	 "binaries": [{"label": "v1.5.3"}, {"label": "fork"}],
	 "runs": [
	  {"label": "v1.5.3", "round": 1, "count": 300, "phases": [
	    {"name": "initial", "seconds": 12, "update_alloc_rpcs": 80},
	    {"name": "rolling", "seconds": 26, "update_alloc_rpcs": 150},
	    {"name": "settle", "seconds": 5, "update_alloc_rpcs": 3}]},
	  {"label": "fork", "round": 1, "count": 300, "phases": [
	    {"name": "initial", "seconds": 11, "update_alloc_rpcs": 40},
	    {"name": "rolling", "seconds": 23.4, "update_alloc_rpcs": 70},
	    {"name": "settle", "seconds": 5, "update_alloc_rpcs": 7}]}]}`
	file := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteResults(r, filepath.Dir(file), &out); err != nil {
		t.Fatal(err)
	}
	fork := r.Table("rolling", "multi").Label("fork")
	if st := fork.Stats["update_alloc_rpcs"]; st.Median != 117 || st.Ratio == nil || *st.Ratio != 117.0/233 {
		t.Errorf("fork RPCs %+v", st)
	}
	if !strings.Contains(out.String(), "rolling        multi       1.00 / 1.00     0.90 / 0.50         –") ||
		!strings.Contains(out.String(), "server counters the leader's") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// TestWriteReportWarmup asserts that the warm-up run is reported, not
// counted, and kept through the JSON.
func TestWriteReportWarmup(t *testing.T) {
	r := fakeReport()
	warm := fakeRun("v1.5.3", "single", 0, 30.5, 300)
	r.Warmup = &warm
	got := roundTrip(t, r)
	var out bytes.Buffer
	WriteReport(&out, got)
	if want := "warm-up run (not counted): v1.5.3, alpha 30.5 s, beta 61.0 s\n"; !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
	if len(got.Runs) != 8 {
		t.Errorf("runs %d", len(got.Runs))
	}
	got.Warmup.Error = "cluster not ready"
	out.Reset()
	WriteReport(&out, got)
	if !strings.Contains(out.String(), "warm-up run (not counted): v1.5.3, failed: cluster not ready") {
		t.Errorf("failed warm-up not reported:\n%s", out.String())
	}
}

func TestWriteNotes(t *testing.T) {
	r := fakeReport()
	r.Runs[1].Error = "rolling: boom\nmore"
	r.Runs[1].Attempt = 2
	r.Runs[0].Workloads[0].Phases[1].Notes = []string{"nomad_raft_apply was reset"}
	r.Runs[2].Workloads[1].Error = "no allocation queued"
	var b bytes.Buffer
	WriteNotes(&b, r)
	for _, want := range []string{
		"fork single round 1: FAILED: rolling: boom", "attempt 2",
		"v1.5.3 single round 1, alpha b: nomad_raft_apply was reset",
		"v1.6.1 single round 1, beta: FAILED: no allocation queued",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, b.String())
		}
	}
}
