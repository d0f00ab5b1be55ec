package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/scale"
)

func TestScaleFlags(t *testing.T) {
	p := newProject(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scale", "-n", "0"}, "must be at least 1"},
		{[]string{"scale", "-n", "1", "-jobs", "20"}, "do not make 20 jobs"},
		{[]string{"scale", "-kill-delay", "-1s"}, "must not be negative"},
		{[]string{"scale", "extra"}, "unexpected arguments"},
		{[]string{"scale", "-variant", "fork=/x/tree"}, "-variant fork: the label is taken"},
		{[]string{"scale", "-variant", "noequals"}, "want name=/path/to/nomad"},
		{[]string{"scale", "-sizes", "10,x"}, `-sizes: "x" is not a number of nodes`},
		{[]string{"scale", "-rounds", "0"}, "-rounds must be at least 1"},
		{[]string{"scale", "-smoke", "-sizes", "10,20"}, "-smoke runs one size"},
		{[]string{"scale", "-workloads", "batch"}, "rolling must be one"},
	} {
		r := p.nomadfork(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("nomadfork %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if r := p.mustFail("scale", "-smoke"); !strings.Contains(r.stderr, "nomadfork apply") {
		t.Errorf("scale without a work tree: %s", r.stderr)
	}
	r := p.mustRun("help", "scale")
	containsAll(t, "help scale", r.stdout, "-smoke", "every-tick", "memory per node")
}

// TestScaleFrom prints the table of a saved report: a run with a lost
// update is NOT OK, a clean one ok, with the ratio column.
func TestScaleFrom(t *testing.T) {
	p := newProject(t)
	initial := func(s, rpcs float64) []experiment.Phase {
		return []experiment.Phase{{Name: experiment.PhaseInitial, Seconds: s, UpdateAllocRPCs: rpcs}}
	}
	rep := &scale.Report{
		Header: experiment.Header{Date: time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC), Machine: "2 cores"}, Scenario: scale.SmokeScenario,
		Servers: experiment.Binary{Label: "fork", Version: "Nomad v1.5.3+fork.1"},
		Results: []scale.Result{
			{Label: "fork", Nodes: 20, Allocs: 200, Phases: initial(10, 50), RSS: 100 << 20,
				Check: scale.Check{Checked: 400}},
			{Label: "every-tick", Nodes: 20, Allocs: 200, Phases: initial(10, 100), RSS: 100 << 20,
				Check: scale.Check{Checked: 400, Lost: []string{"a1 on nodesim-0: status: servers running, node complete"}}},
		},
	}
	saved := filepath.Join(p.dir, "scale.json")
	if err := rep.WriteJSON(saved); err != nil {
		t.Fatal(err)
	}
	r := p.mustRun("scale", "-from", saved)
	containsAll(t, "scale -from", r.stdout,
		"| figure | fork | every-tick | fork ÷ every-tick |",
		"| `Node.UpdateAlloc` RPCs (servers) | 50 | 100 | 0.50 |",
		"| **memory per node** (steady RSS / N) | 5.0 MiB | 5.0 MiB | 1.00 |",
		"| result | ok | NOT OK |  |",
		"every-tick: lost: a1 on nodesim-0")
}
