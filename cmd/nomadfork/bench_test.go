package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

func TestBenchFlags(t *testing.T) {
	p := newProject(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-versions", "v1.0.0,bogus"}, `unknown label "bogus"`},
		{[]string{"bench", "-versions", "fork,fork"}, "fork given twice"},
		{[]string{"bench", "-variant", "noequals"}, "want name=/path/to/nomad"},
		{[]string{"bench", "-n", "drain=0"}, "at least 1"},
		{[]string{"bench", "-workload", "nope"}, `unknown workload "nope"`},
		{[]string{"bench", "-topology", "ring"}, "unknown topology"},
		{[]string{"bench", "extra"}, "unexpected arguments"},
	} {
		r := p.nomadfork(c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("nomadfork %s: exit %d, stderr %q; want failure and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if r := p.mustFail("bench", "-build-only"); !strings.Contains(r.stderr, "nomadfork apply") {
		t.Errorf("bench without a work tree: %s", r.stderr)
	}
}

// TestBenchBuildsAndReuses builds the base, the fork and another upstream
// version of the fixture in linked work trees, reuses them while their
// commits are unchanged, rebuilds only the fork after a new commit, and
// leaves the work tree's branches, HEAD and files alone.
func TestBenchBuildsAndReuses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	p := newProject(t)
	p.twoPatches()
	out := filepath.Join(p.dir, "out", "bench")
	refs := func() string {
		return p.git("for-each-ref", "--format=%(refname) %(objectname)") + " HEAD " + p.git("rev-parse", "HEAD")
	}
	before := refs()

	args := []string{"bench", "-build-only", "-versions", "v1.0.0,fork,v1.0.2", "-o", out}
	r := p.mustRun(args...)
	containsAll(t, "first run", r.stdout, "building v1.0.0 nomad", "building fork nomad", "importing upstream v1.0.2", "building v1.0.2 nomad")
	for _, l := range []string{"v1.0.0", "fork", "v1.0.2"} {
		if _, err := os.Stat(filepath.Join(out, "bin", l, "nomad")); err != nil {
			t.Errorf("%s binary: %v", l, err)
		}
	}
	if got := p.git("-C", filepath.Join(out, "src", "fork"), "rev-parse", "HEAD"); got != p.git("rev-parse", "HEAD") {
		t.Errorf("fork source at %s, want the work tree's HEAD", got)
	}

	r = p.mustRun(args...)
	if strings.Contains(r.stdout, "building") || strings.Count(r.stdout, "reusing") != 3 {
		t.Errorf("second run rebuilt something:\n%s", r.stdout)
	}

	// A new commit on the fork rebuilds the fork only; uncommitted
	// changes are noted, not built.
	p.commitEdit("lib/lib.go", "return 7 }", "return 70 }", "lib: make F7 return 70")
	p.write("nomad/lib/lib.go", p.read("nomad/lib/lib.go")+"\n// uncommitted\n")
	before = refs()
	r = p.mustRun(args...)
	if !strings.Contains(r.stdout, "building fork nomad") || strings.Count(r.stdout, "reusing") != 2 {
		t.Errorf("after a fork commit:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "uncommitted changes") {
		t.Errorf("uncommitted changes not noted:\n%s", r.stdout)
	}
	if after := refs(); after != before {
		t.Errorf("bench moved refs:\nbefore %s\nafter  %s", before, after)
	}
	if !strings.HasSuffix(p.read("nomad/lib/lib.go"), "// uncommitted\n") {
		t.Error("bench touched the work tree's files")
	}

	// A variant is checked, not run.
	r = p.nomadfork("bench", "-build-only", "-versions", "fork", "-o", out, "-variant", "fork="+filepath.Join(out, "bin", "fork", "nomad"))
	if r.code != 2 || !strings.Contains(r.stderr, "label is taken") {
		t.Errorf("variant with a taken label: %d %s", r.code, r.stderr)
	}
	r = p.mustRun("bench", "-build-only", "-versions", "fork", "-o", out, "-variant", "v2="+filepath.Join(out, "bin", "fork", "nomad"))
	if !strings.Contains(r.stdout, "v2 ") {
		t.Errorf("variant not listed:\n%s", r.stdout)
	}
	p.mustFail("bench", "-build-only", "-versions", "fork", "-o", out, "-variant", "v3="+filepath.Join(out, "missing"))
}

// TestBenchFrom redoes the table and charts of a saved report: -from prints
// exactly what the run printed, also after the pin moved to another
// version, because the report holds its own labels.
func TestBenchFrom(t *testing.T) {
	p := newProject(t)
	dir := filepath.Join(p.dir, "saved")
	rep := &bench.Report{Count: 30, Rounds: 1, Header: experiment.Header{Command: "nomadfork bench -quick", Cores: 2},
		Topology: "multi", Servers: 3, Clients: 3, Base: "v1.0.0", Fork: "fork", Ref: "v1.0.2",
		Binaries: []experiment.Binary{
			{Label: "v1.0.0", Path: "/b/nomad", Source: "0123456789abcdef", Version: "Nomad v1.0.0", Revision: "0123456789abcdef0123"},
			{Label: "fork", Path: "/f/nomad", Source: "fedcba9876543210", Version: "Nomad v1.0.0+fork.1", Revision: "fedcba9876543210fedc"},
			{Label: "v1.0.2", Path: "/r/nomad", Source: "aaaabbbbccccdddd", Version: "Nomad v1.0.2"},
		}}
	for i, label := range []string{"v1.0.0", "fork", "v1.0.2"} {
		rep.Runs = append(rep.Runs, bench.RoundRun{Label: label, Round: 1, Count: 30, LoadAvg: []float64{1, 3}, Phases: []experiment.Phase{
			{Name: experiment.PhaseInitial, Seconds: 4, UpdateAllocRPCs: float64(20 - 5*i), RaftApplies: 30},
			{Name: experiment.PhaseRolling, Seconds: 5, UpdateAllocRPCs: 20, RaftApplies: 30},
			{Name: experiment.PhaseSettle, Seconds: 5},
		}})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// What the run printed: the run writes its results with the same
	// function.
	var ran strings.Builder
	if err := bench.WriteResults(rep, dir, &ran); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "bench.json")
	r := p.mustRun("bench", "-from", saved)
	if r.stdout != ran.String() {
		t.Errorf("-from prints another table than the run:\n%s\nrun:\n%s", r.stdout, ran.String())
	}
	containsAll(t, "output", r.stdout, "command: nomadfork bench -quick", "fork       /f/nomad; Nomad v1.0.0+fork.1 (commit fedcba987654)",
		"× v1.0.0", "0.88", "rolling (N=30), multi topology (3 server(s), 3 clients)", "WARNING: load above the 2 cores",
		"fork Node.UpdateAlloc RPCs ≤ v1.0.2's: met in 0 of 1; MISSED: rolling/multi 1.17")
	for _, f := range []string{"table.txt", "summary-latency.png", "summary-rpcs.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}

	// The pin moves on: the saved run still reads against v1.0.0.
	p.repin("v1.0.2")
	if again := p.mustRun("bench", "-from", saved); again.stdout != ran.String() {
		t.Errorf("after a pin change -from prints:\n%s\nwant:\n%s", again.stdout, ran.String())
	}
}
