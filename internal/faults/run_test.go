package faults

import (
	"reflect"
	"testing"
	"time"
)

func TestOptionsRoundTrip(t *testing.T) {
	o := DefaultOptions
	o.Fault, o.Nomad, o.Label, o.Dir = "partition-mcd", "/x/nomad", "fork", "/x/run"
	o.Count, o.ConvergeTimeout = 12, 90*time.Second
	o.Upstream, o.UpstreamLabel = "/x/upstream", "v1.5.3"
	got, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, o) {
		t.Fatalf("round trip: %+v, want %+v", got, o)
	}
	for _, args := range [][]string{
		{"-nomad=/x", "-dir=/y", "-fault=flood"},
		{"-dir=/y", "-fault=leader-kill"},
		{"-nomad=/x", "-dir=/y", "-fault=leader-kill", "-n=1"},
		{"-nomad=/x", "-dir=/y", "-fault=leader-kill", "stray"},
		// The pair scenarios need the upstream binary.
		{"-nomad=/x", "-dir=/y", "-fault=upgrade"},
		{"-nomad=/x", "-dir=/y", "-fault=mixed", "-upstream=/u"},
	} {
		if _, err := ParseOptions(args); err == nil {
			t.Errorf("ParseOptions(%q) accepted", args)
		}
	}
	// A run is bounded by its parts.
	if l := o.Limit(); l < o.PhaseTimeout*2+o.ConvergeTimeout {
		t.Fatalf("limit %s shorter than its deployments and convergence", l)
	}
}

func TestParseFaults(t *testing.T) {
	all, err := ParseFaults("all")
	if err != nil || len(all) != len(Faults) {
		t.Fatalf("all: %v, %v", all, err)
	}
	two, err := ParseFaults("server-stall, leader-kill")
	if err != nil || len(two) != 2 || two[0].Name != "server-stall" || two[1].Name != "leader-kill" {
		t.Fatalf("two: %v, %v", two, err)
	}
	mcd, _ := LookupFault("partition-mcd")
	plain, _ := LookupFault("partition")
	if mcd.MaxClientDisconnect == 0 || plain.MaxClientDisconnect != 0 {
		t.Fatalf("max_client_disconnect: partition-mcd %s, partition %s", mcd.MaxClientDisconnect, plain.MaxClientDisconnect)
	}
	for _, bad := range []string{"nope", "leader-kill,leader-kill", "leader-kill,"} {
		if _, err := ParseFaults(bad); err == nil {
			t.Errorf("ParseFaults(%q) accepted", bad)
		}
	}
}

func TestResultOK(t *testing.T) {
	conv := 3.0
	lost := Finding{Alloc: "a1", Detail: "x"}
	for _, tc := range []struct {
		name string
		r    Result
		ok   bool
	}{
		{"clean", Result{ConvergeSeconds: &conv}, true},
		{"lost", Result{ConvergeSeconds: &conv, Verdict: Verdict{Lost: []Finding{lost}}}, false},
		{"duplicate", Result{ConvergeSeconds: &conv, Verdict: Verdict{Duplicates: []Finding{lost}}}, false},
		{"rerun only", Result{ConvergeSeconds: &conv, Verdict: Verdict{Rerun: []Finding{lost}}}, true},
		{"not converged", Result{}, false},
		{"unchecked", Result{ConvergeSeconds: &conv, Verdict: Verdict{Unchecked: 1}}, false},
		{"error", Result{ConvergeSeconds: &conv, Error: "boom"}, false},
		{"control: the dropped one lost", Result{ConvergeSeconds: &conv, ExpectedLost: []string{"a1"}, Verdict: Verdict{Lost: []Finding{lost}}}, true},
		{"control: nothing lost", Result{ConvergeSeconds: &conv, ExpectedLost: []string{"a1"}}, false},
		{"control: another lost", Result{ConvergeSeconds: &conv, ExpectedLost: []string{"a2"}, Verdict: Verdict{Lost: []Finding{lost}}}, false},
	} {
		if got := tc.r.OK(); got != tc.ok {
			t.Errorf("%s: OK %t, want %t", tc.name, got, tc.ok)
		}
	}
}
