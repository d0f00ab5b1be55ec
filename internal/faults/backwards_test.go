package faults

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// restoredViews is a restore to an older snapshot: the servers' view is
// the snapshot's, taken mid deployment — a1 just placed (pending, no
// health), a2 of the old version running, a3 running — while the clients
// ran on: a1 turned healthy, a2 was stopped (complete), a4 was created
// after the snapshot and stopped once the restored servers no longer
// listed it, and a5, also created after the snapshot, still runs on
// client2.
func restoredViews() ([]ServerAlloc, []update, map[string]ClientView) {
	running := TaskView{State: TaskRunning, Starts: 1}
	dead := TaskView{State: TaskDead, Starts: 1}
	restored := []ServerAlloc{
		{ID: "a1", Name: "j.g[0]", Node: "client1", JobVersion: 1, DesiredStatus: "run", ClientStatus: experiment.ClientPending},
		{ID: "a2", Name: "j.g[1]", Node: "client1", DesiredStatus: "run", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": running}},
		{ID: "a3", Name: "j.g[2]", Node: "client2", DesiredStatus: "run", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": running}},
	}
	// What the clients would send again for the servers to converge.
	resend := []update{
		{alloc: "a1", status: experiment.ClientRunning, task: running, healthy: ptr(true)},
		{alloc: "a2", status: experiment.ClientComplete, task: dead},
	}
	clients := map[string]ClientView{
		"client1": {
			"a1": {ID: "a1", Tasks: map[string]TaskView{"task": running}, Healthy: ptr(true)},
			"a2": {ID: "a2", Tasks: map[string]TaskView{"task": dead}},
			"a4": {ID: "a4", Tasks: map[string]TaskView{"task": dead}, Healthy: ptr(true)},
		},
		"client2": {
			"a3": {ID: "a3", Tasks: map[string]TaskView{"task": running}},
			"a5": {ID: "a5", Tasks: map[string]TaskView{"task": running}},
		},
	}
	return restored, resend, clients
}

func TestCheckAfterARestoreReportsWhatTheClientsNeverResent(t *testing.T) {
	restored, _, clients := restoredViews()
	v := Check(restored, clients)
	lost := map[string]string{}
	for _, f := range v.Lost {
		lost[f.Alloc] = f.Detail
	}
	if len(lost) != 2 || !strings.Contains(lost["a1"], "the servers hold it pending") || !strings.Contains(lost["a2"], "its client holds it complete; the servers hold it running") {
		t.Errorf("lost %v; want a1 (pending on the servers) and a2 (running on the servers)", v.Lost)
	}
	if v.Checked != 3 {
		t.Errorf("checked %d; want the 3 allocations the servers hold", v.Checked)
	}
}

func TestCheckAfterARestoreDoesNotBlameForgottenAllocations(t *testing.T) {
	restored, resend, clients := restoredViews()
	v := Check(deliver(restored, resend, nil), clients)
	if len(v.Lost) != 0 {
		t.Errorf("lost %v; want none once the clients resent their state", v.Lost)
	}
	if len(v.ClientOnly) != 1 || v.ClientOnly[0].Alloc != "a4" || !strings.Contains(v.ClientOnly[0].Detail, "complete; the servers do not hold it") {
		t.Errorf("client only %v; want a4, stopped on client1", v.ClientOnly)
	}
	// a5 still runs although the servers forgot it: they place its name
	// again, so it is a duplicate run, not something they could converge to.
	if len(v.Duplicates) != 1 || v.Duplicates[0].Alloc != "a5" || v.Duplicates[0].Node != "client2" || !strings.Contains(v.Duplicates[0].Detail, "the servers do not hold it") {
		t.Errorf("duplicates %v; want a5 on client2", v.Duplicates)
	}
	// With a5 stopped too, nothing is held against the run.
	clients["client2"]["a5"] = ClientAlloc{ID: "a5", Tasks: map[string]TaskView{"task": {State: TaskDead, Starts: 1}}}
	if v := Check(deliver(restored, resend, nil), clients); len(v.Lost) != 0 || len(v.Duplicates) != 0 || len(v.ClientOnly) != 2 {
		t.Errorf("lost %v, duplicates %v, client only %v; want 0, 0, 2", v.Lost, v.Duplicates, v.ClientOnly)
	}
}

func TestCheckClientOnlyNeedsAView(t *testing.T) {
	restored, resend, clients := restoredViews()
	clients["client2"] = nil
	v := Check(deliver(restored, resend, nil), clients)
	if v.Unchecked != 1 || len(v.Duplicates) != 0 {
		t.Errorf("unchecked %d, duplicates %v; an unread client is unchecked, never a finding", v.Unchecked, v.Duplicates)
	}
}

func TestStoppingOn(t *testing.T) {
	wanted := map[string]bool{}
	first := []cluster.AllocStub{
		{ID: "run", NodeID: "n1", DesiredStatus: "run", ClientStatus: experiment.ClientRunning},
		{ID: "early", NodeID: "n1", DesiredStatus: "stop", ClientStatus: experiment.ClientRunning},
		{ID: "other", NodeID: "n2", DesiredStatus: "run", ClientStatus: experiment.ClientRunning},
	}
	if got, ok := stoppingOn(first, wanted); ok {
		t.Errorf("first poll: %q; a stop decided before the first poll may be over", got.ID)
	}
	// The stop is seen on whichever node it happens: the node a scenario
	// would pick may hold no allocation the deployment stops later.
	second := []cluster.AllocStub{
		{ID: "run", NodeID: "n1", DesiredStatus: "run", ClientStatus: experiment.ClientRunning},
		{ID: "early", NodeID: "n1", DesiredStatus: "stop", ClientStatus: experiment.ClientRunning},
		{ID: "other", NodeID: "n2", DesiredStatus: "stop", ClientStatus: experiment.ClientRunning},
	}
	if got, ok := stoppingOn(second, wanted); !ok || got.ID != "other" || got.NodeID != "n2" {
		t.Errorf("second poll: %q on %q, %v; want other on n2, just stopped", got.ID, got.NodeID, ok)
	}
	second[2].ClientStatus = experiment.ClientPending
	if got, ok := stoppingOn(second, wanted); !ok || got.ID != "other" {
		t.Errorf("waiting out its shutdown_delay: %q, %v; want other", got.ID, ok)
	}
	second[2].ClientStatus = experiment.ClientComplete
	if got, ok := stoppingOn(second, wanted); ok {
		t.Errorf("once complete: %q", got.ID)
	}
}

func TestOldVersionCounts(t *testing.T) {
	allocs := []cluster.AllocStub{
		{JobVersion: 0, ClientStatus: experiment.ClientRunning},
		{JobVersion: 0, ClientStatus: experiment.ClientComplete},
		{JobVersion: 1, ClientStatus: experiment.ClientRunning},
	}
	if oldRunning(allocs) != 1 || oldVersion(allocs) != 2 {
		t.Errorf("old running %d, old %d; want 1, 2", oldRunning(allocs), oldVersion(allocs))
	}
}

func TestShutdownFlushJobKillsSlowly(t *testing.T) {
	f, err := LookupFault("shutdown-flush")
	if err != nil {
		t.Fatal(err)
	}
	r := &run{opts: DefaultOptions, fault: f}
	if got := r.job(1).TaskGroups[0].Tasks[0].ShutdownDelay; got != 3*time.Second {
		t.Errorf("shutdown_delay %v; want 3s", got)
	}
	other, _ := LookupFault("stale-read")
	r = &run{opts: DefaultOptions, fault: other}
	if got := r.job(1).TaskGroups[0].Tasks[0].ShutdownDelay; got != 0 {
		t.Errorf("shutdown_delay %v in a scenario that does not ask for it", got)
	}
}

// After a restore the clients learn that the servers went back only when
// their blocking queries return (up to 5 min and 1/16 of jitter after they
// began): the restored deployment, whose progress deadline counts from its
// last progress before the snapshot, must not fail before.
func TestSnapshotRestoreDeploymentOutlastsBlockingQueries(t *testing.T) {
	f, err := LookupFault("snapshot-restore")
	if err != nil {
		t.Fatal(err)
	}
	r := &run{opts: DefaultOptions, fault: f}
	longestQuery := 5*time.Minute + 5*time.Minute/16
	if got := r.job(1).TaskGroups[0].Update.ProgressDeadline; got <= longestQuery+time.Minute {
		t.Errorf("progress_deadline %v; want well above the clients' longest blocking query %v", got, longestQuery)
	}
	if f.MinConverge <= longestQuery {
		t.Errorf("MinConverge %v; want above the clients' longest blocking query %v", f.MinConverge, longestQuery)
	}
	other, _ := LookupFault("stale-read")
	r = &run{opts: DefaultOptions, fault: other}
	if got := r.job(1).TaskGroups[0].Update.ProgressDeadline; got != 5*time.Minute {
		t.Errorf("progress_deadline %v in a scenario that does not ask for another; want 5m", got)
	}
}

func TestWriteFindingsClientOnly(t *testing.T) {
	var b bytes.Buffer
	writeFindings(&b, &Result{Label: "fork", Verdict: Verdict{ClientOnly: []Finding{{Alloc: "a4"}, {Alloc: "a6"}}}})
	if !strings.Contains(b.String(), "fork: 2 allocation(s) only their client holds, none running") {
		t.Errorf("findings:\n%s", b.String())
	}
}
