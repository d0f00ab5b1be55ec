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
	}
	r := &Report{Count: 300, Rounds: 1, Runs: runs, Binaries: []Binary{
		{Label: "v1.5.3", Path: "/b/v1.5.3/nomad", Source: "0690e6c70451deadbeef"},
		{Label: "urgent-health", Path: "/tmp/nomad", Source: "external", Variant: true},
	}}
	r.Summaries = Aggregate(runs, []string{"v1.5.3", "fork", "v1.6.1", "urgent-health"}, map[string]bool{"urgent-health": true}, "v1.5.3")
	r.Goals = Goals(r, "v1.5.3", "fork", "v1.6.1")
	return r
}

func TestWriteTable(t *testing.T) {
	r := fakeReport()
	var b bytes.Buffer
	WriteTable(&b, r, "v1.5.3")
	out := b.String()
	for _, want := range []string{
		"v1.5.3: 1 run(s); /b/v1.5.3/nomad (commit 0690e6c70451)",
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
	if len(r.Goals) != 5 {
		t.Fatalf("%d goals", len(r.Goals))
	}
	met := map[string]bool{}
	for _, g := range r.Goals {
		if g.Met == nil {
			t.Fatalf("goal %q not evaluated", g.What)
		}
		met[g.What] = *g.Met
	}
	if !met["fork Node.UpdateAlloc RPCs ≤ 0.65 × v1.5.3"] || met["fork Raft applies ≤ 0.75 × v1.5.3"] {
		t.Errorf("goals %v", met)
	}
	if !met["fork not dominated by v1.6.1 (fewer RPCs or a faster rolling deployment)"] {
		t.Errorf("fork is faster than v1.6.1: %v", met)
	}
	if g := r.Goals[0]; g.Ref == nil || *g.Ref != 107.0/200 {
		t.Errorf("reference ratio %v", g.Ref)
	}
	var b bytes.Buffer
	WriteGoals(&b, r, "v1.6.1")
	if !strings.Contains(b.String(), "MISSED  fork Raft applies ≤ 0.75 × v1.5.3: 0.769 (v1.6.1: 0.631)") ||
		!strings.Contains(b.String(), "met     fork Node.UpdateAlloc RPCs ≤ 0.65 × v1.5.3: 0.600 (v1.6.1: 0.535)") {
		t.Errorf("goals text:\n%s", b.String())
	}
	if Goals(&Report{}, "v1.5.3", "fork", "v1.6.1") != nil {
		t.Error("goals without runs")
	}
}

func TestReportJSONRoundTrip(t *testing.T) {
	r := fakeReport()
	file := filepath.Join(t.TempDir(), "bench.json")
	if err := r.WriteJSON(file); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 4 || got.Summary("fork") == nil || *got.Summary("fork").Stats["update_alloc_rpcs"].Ratio != 0.6 {
		t.Errorf("round trip lost data: %+v", got.Summary("fork"))
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
