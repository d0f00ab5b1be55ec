package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/faults"
)

func TestFaultsFlags(t *testing.T) {
	p := newProject(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"faults", "-faults", "leader-kill,meteor"}, `unknown scenario "meteor"`},
		{[]string{"faults", "-faults", "partition,partition"}, "partition given twice"},
		{[]string{"faults", "-versions", "fork,bogus"}, `unknown label "bogus"`},
		{[]string{"faults", "-n", "2"}, "-n must be at least 3"},
		{[]string{"faults", "-settle", "-1s"}, "-settle not negative"},
		{[]string{"faults", "extra"}, "unexpected arguments"},
		{[]string{"faults", "-variant", "fork=/x/nomad"}, "-variant fork: the label is taken"},
		{[]string{"faults", "-variant", "noequals"}, "want name=/path/to/nomad"},
		{[]string{"faults", "-faults", "upgrade", "-versions", "v1.6.1"}, "run for the fork and the variants only"},
	} {
		r := p.nomadfork(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("nomadfork %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
	if r := p.mustFail("faults", "-smoke"); !strings.Contains(r.stderr, "nomadfork apply") {
		t.Errorf("faults without a work tree: %s", r.stderr)
	}
	// Every scenario but no tested binary: the pair scenarios are skipped,
	// not an error.
	if r := p.mustFail("faults", "-versions", "v1.6.1"); !strings.Contains(r.stdout, "upgrade, upgrade-control and mixed skipped") || !strings.Contains(r.stderr, "nomadfork apply") {
		t.Errorf("faults -versions v1.6.1: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r := p.mustRun("help", "faults")
	for _, s := range faults.FaultNames() {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("help faults lacks %s:\n%s", s, r.stdout)
		}
	}
}

// TestFaultsFrom prints the table of a saved report: a lost update and a
// run that did not converge show as NOT OK, a clean one as ok.
func TestFaultsFrom(t *testing.T) {
	p := newProject(t)
	conv := 7.5
	rep := &faults.Report{
		Header: experiment.Header{Date: time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC), Machine: "2 cores"}, Count: 30,
		Binaries: []experiment.Binary{{Label: "v1.5.3"}, {Label: "fork"}},
		Faults:   []string{"partition"},
		Results: []faults.Result{
			{Fault: "partition", Label: "v1.5.3", Verdict: faults.Verdict{Checked: 60,
				Lost: []faults.Finding{{Alloc: "0123456789", Name: "faults.mock[3]", Node: "client1", Detail: "the servers hold it running; no task of it runs on its client"}}},
				ConvergeSeconds: &conv, RPCs: 40},
			{Fault: "partition", Label: "fork", Verdict: faults.Verdict{Checked: 60}, ConvergeSeconds: &conv, RPCs: 30},
		},
	}
	saved := filepath.Join(p.dir, "faults.json")
	if err := rep.WriteJSON(saved); err != nil {
		t.Fatal(err)
	}
	r := p.mustRun("faults", "-from", saved)
	containsAll(t, "faults -from", r.stdout,
		"partition: take a client host's link down",
		"NOT OK", "7.5s",
		"v1.5.3: lost: 01234567 (faults.mock[3] on client1): the servers hold it running",
		"2 run(s)", "1 not ok")
	if _, err := os.Stat(saved); err != nil {
		t.Fatal(err)
	}
}
