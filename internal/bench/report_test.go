package bench

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func fakeReport() *Report {
	runs := []Run{
		fakeRun("v1.5.3", 1, 200, 260, 12, 26, false),
		fakeRun("fork", 1, 120, 200, 12.2, 25, true),
		fakeRun("v1.6.1", 1, 107, 164, 12.2, 28.1, false),
		fakeRun("urgent-health", 1, 150, 200, 11, 22, true),
		fakeRun("dedupe", 1, 100, 160, 11.5, 25, true),
	}
	r := &Report{Count: 300, Rounds: 1, Runs: runs, Base: "v1.5.3", Fork: "fork", Ref: "v1.6.1", Binaries: []Binary{
		{Label: "v1.5.3", Path: "/b/v1.5.3/nomad", Source: "0690e6c70451deadbeef", Version: "Nomad v1.5.3", Revision: "434f7a1745c624bdb8b8b1fd0ee1ab8b1df3bcbd"},
		{Label: "urgent-health", Path: "/tmp/nomad", Source: "external", Variant: true},
		{Label: "dedupe", Path: "/tmp/dedupe", Source: "external", Variant: true},
	}}
	r.Summaries = Aggregate(runs, []string{"v1.5.3", "fork", "v1.6.1", "urgent-health", "dedupe"}, map[string]bool{"urgent-health": true, "dedupe": true}, "v1.5.3")
	r.Goals = Goals(r)
	return r
}

func TestWriteTable(t *testing.T) {
	r := fakeReport()
	var b bytes.Buffer
	WriteTable(&b, r, "v1.5.3")
	out := b.String()
	for _, want := range []string{
		"v1.5.3: 1 run(s); Nomad v1.5.3 (revision 434f7a1745c6); /b/v1.5.3/nomad (commit 0690e6c70451)",
		"urgent-health: 1 run(s); /tmp/nomad (external) [variant]",
		"Node.UpdateAlloc RPCs",
		"0.60", // fork RPCs 120/200
		"12.2 s",
		"n/a",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// upstream versions show n/a for the fork's client split.
	block := out[strings.Index(out, "v1.6.1:"):]
	block = block[:strings.Index(block, "\n\n")]
	for _, line := range strings.Split(block, "\n") {
		if strings.Contains(line, "client RPCs: urgent") && !strings.Contains(line, "n/a") {
			t.Errorf("v1.6.1 urgent RPCs not n/a: %q", line)
		}
	}
}

func TestGoals(t *testing.T) {
	r := fakeReport()
	if len(r.Goals) != 15 {
		t.Fatalf("%d goals, want 5 each for the fork and two variants", len(r.Goals))
	}
	met := map[string]bool{}
	for _, g := range r.Goals {
		if g.Met == nil {
			t.Fatalf("goal %q not evaluated", g.What)
		}
		met[g.What] = *g.Met
	}
	for what, want := range map[string]bool{
		"fork Node.UpdateAlloc RPCs ≤ v1.6.1's":     false, // 120 vs 107
		"fork rolling deployment ≤ 1.00 × v1.5.3":   true,  // 25 vs 26
		"fork initial deployment ≤ 1.00 × v1.5.3":   false, // 12.2 vs 12
		"fork dominates v1.6.1 (all four)":          false,
		"urgent-health dominates v1.6.1 (all four)": false,
		"dedupe Raft applies ≤ v1.6.1's":            true, // 160 vs 164
		"dedupe dominates v1.6.1 (all four)":        true,
		"v1.6.1 dominates v1.6.1 (all four)":        false, // absent: not a candidate
	} {
		if met[what] != want {
			t.Errorf("%s: met %v, want %v", what, met[what], want)
		}
	}
	var b bytes.Buffer
	WriteGoals(&b, r)
	for _, want := range []string{
		"MISSED  fork Node.UpdateAlloc RPCs ≤ v1.6.1's: 1.121 (120 vs 107)",
		"met     dedupe dominates v1.6.1 (all four)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("goals text lacks %q:\n%s", want, b.String())
		}
	}
	if Goals(&Report{}) != nil {
		t.Error("goals without runs")
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
	if !strings.Contains(b.String(), "round 1 (v1.5.3, fork, v1.6.1, urgent-health, dedupe): load 1.9, others 0.50 cores\n") {
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

func TestReportJSONRoundTrip(t *testing.T) {
	got := roundTrip(t, fakeReport())
	if len(got.Runs) != 5 || got.Summary("fork") == nil || *got.Summary("fork").Stats["update_alloc_rpcs"].Ratio != 0.6 {
		t.Errorf("round trip lost data: %+v", got.Summary("fork"))
	}
}

// TestWriteReportWarmup asserts that the warm-up run is reported, not
// counted, and kept through the JSON.
func TestWriteReportWarmup(t *testing.T) {
	r := fakeReport()
	warm := fakeRun("v1.5.3", 0, 300, 400, 30.5, 41, false)
	r.Warmup = &warm
	got := roundTrip(t, r)
	var out bytes.Buffer
	WriteReport(&out, got)
	if want := "warm-up run (not counted): v1.5.3, initial deployment 30.5 s, rolling deployment 41.0 s\n"; !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
	if len(got.Runs) != 5 || got.Warmup.Phase(PhaseInitial).UpdateAllocRPCs != warm.Phase(PhaseInitial).UpdateAllocRPCs {
		t.Errorf("runs %d, warm-up %+v", len(got.Runs), got.Warmup)
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
	r.Runs[1].Error = "initial deployment: boom\nmore"
	r.Runs[1].Attempt = 2
	r.Runs[0].Phases[1].Notes = []string{"nomad_raft_apply was reset"}
	var b bytes.Buffer
	WriteNotes(&b, r)
	for _, want := range []string{"fork round 1: FAILED: initial deployment: boom", "attempt 2", "v1.5.3 round 1, rolling: nomad_raft_apply was reset"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, b.String())
		}
	}
}
