package faults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

func ptr[T any](v T) *T { return &v }

// update is one allocation update a client sends: the state its alloc
// runner reached.
type update struct {
	alloc   string
	status  string
	task    TaskView
	healthy *bool
}

// deliver replays a client's updates onto the servers' view, as
// Node.UpdateAlloc applies them, except the ones drop discards: a test
// hook standing in for an update lost on the way.
func deliver(servers []ServerAlloc, updates []update, drop func(i int, u update) bool) []ServerAlloc {
	out := make([]ServerAlloc, len(servers))
	copy(out, servers)
	for i, u := range updates {
		if drop != nil && drop(i, u) {
			continue
		}
		for j := range out {
			if out[j].ID != u.alloc {
				continue
			}
			out[j].ClientStatus = u.status
			out[j].Tasks = map[string]TaskView{"task": u.task}
			if u.healthy != nil {
				out[j].Healthy = u.healthy
			}
		}
	}
	return out
}

// scenarioViews is a small deployment: allocation a1 runs and turns
// healthy, a2 runs and then completes (its task exits, so the client holds
// no handle for it), a3 stays running; all on client1.
func scenarioViews() ([]ServerAlloc, []update, map[string]ClientView) {
	servers := []ServerAlloc{
		{ID: "a1", Name: "j.g[0]", Node: "client1", DesiredStatus: "run", ClientStatus: experiment.ClientPending},
		{ID: "a2", Name: "j.g[1]", Node: "client1", DesiredStatus: "stop", ClientStatus: experiment.ClientPending},
		{ID: "a3", Name: "j.g[2]", Node: "client1", DesiredStatus: "run", ClientStatus: experiment.ClientPending},
	}
	running := TaskView{State: TaskRunning, Starts: 1}
	updates := []update{
		{alloc: "a1", status: experiment.ClientRunning, task: running},
		{alloc: "a2", status: experiment.ClientRunning, task: running},
		{alloc: "a3", status: experiment.ClientRunning, task: running},
		{alloc: "a1", status: experiment.ClientRunning, task: running, healthy: ptr(true)},
		{alloc: "a2", status: experiment.ClientComplete, task: TaskView{State: TaskDead, Starts: 1}},
	}
	clients := map[string]ClientView{"client1": {
		"a1": {ID: "a1", Tasks: map[string]TaskView{"task": running}, Healthy: ptr(true)},
		"a2": {ID: "a2", Tasks: map[string]TaskView{"task": {State: TaskDead, Starts: 1}}},
		"a3": {ID: "a3", Tasks: map[string]TaskView{"task": running}},
	}}
	return servers, updates, clients
}

func TestCheckAgreesWhenEveryUpdateArrives(t *testing.T) {
	servers, updates, clients := scenarioViews()
	v := Check(deliver(servers, updates, nil), clients)
	if len(v.Lost) != 0 || len(v.Duplicates) != 0 {
		t.Fatalf("lost %v, duplicates %v; want none", v.Lost, v.Duplicates)
	}
	if v.Checked != 3 || v.Unchecked != 0 {
		t.Fatalf("checked %d, unchecked %d; want 3, 0", v.Checked, v.Unchecked)
	}
}

// Each update of the sequence, dropped on its own, is reported as lost —
// except the ones a later update of the same allocation supersedes.
func TestCheckReportsADroppedUpdateAsLost(t *testing.T) {
	servers, updates, clients := scenarioViews()
	for i, want := range []struct {
		lost   bool
		detail string
	}{
		{false, ""}, // a1 running: superseded by a1 healthy
		{false, ""}, // a2 running: superseded by a2 complete
		{true, "it runs on its client; the servers hold it pending"},
		{true, "its client set health healthy; the servers hold unset"},
		{true, "its client holds it complete; the servers hold it running"},
	} {
		drop := func(j int, _ update) bool { return j == i }
		v := Check(deliver(servers, updates, drop), clients)
		if !want.lost {
			if len(v.Lost) != 0 {
				t.Errorf("update %d dropped: lost %v, want none (a later update supersedes it)", i, v.Lost)
			}
			continue
		}
		if len(v.Lost) != 1 || v.Lost[0].Alloc != updates[i].alloc || v.Lost[0].Detail != want.detail {
			t.Errorf("update %d dropped: lost %v, want %s: %q", i, v.Lost, updates[i].alloc, want.detail)
		}
	}
}

func TestCheckTaskDisagreements(t *testing.T) {
	run := TaskView{State: TaskRunning, Starts: 1}
	for _, tc := range []struct {
		name   string
		server map[string]TaskView
		client TaskView
		want   string
	}{
		{"restart not delivered", map[string]TaskView{"task": run}, TaskView{State: TaskRunning, Restarts: 1, Starts: 2}, "restarted 1 time(s) on its client; the servers hold 0"},
		{"no task state", map[string]TaskView{}, run, "the servers have no state for it"},
		{"task state behind", map[string]TaskView{"task": {State: TaskPending}}, run, "is running on its client; the servers hold pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			servers := []ServerAlloc{{ID: "a1", Name: "j.g[0]", Node: "c", ClientStatus: experiment.ClientRunning, Tasks: tc.server}}
			clients := map[string]ClientView{"c": {"a1": {ID: "a1", Tasks: map[string]TaskView{"task": tc.client}}}}
			v := Check(servers, clients)
			if len(v.Lost) != 1 || !strings.Contains(v.Lost[0].Detail, tc.want) {
				t.Fatalf("lost %v, want one containing %q", v.Lost, tc.want)
			}
		})
	}
}

func TestCheckServerStatuses(t *testing.T) {
	run := TaskView{State: TaskRunning, Starts: 1}
	done := TaskView{State: TaskDead, Starts: 1}
	failed := TaskView{State: TaskDead, Failed: true, Starts: 1}
	for _, tc := range []struct {
		server string
		client *TaskView // nil: the client holds no task state
		has    bool
		lost   bool
	}{
		{experiment.ClientRunning, &run, true, false},
		{experiment.ClientUnknown, &run, true, true}, // reconnected, the client's running never arrived
		{experiment.ClientLost, &run, true, true},
		{experiment.ClientComplete, &run, true, true},
		{experiment.ClientComplete, &done, true, false},
		{experiment.ClientLost, &done, true, true}, // stopped on reconnect, the complete never arrived
		{experiment.ClientRunning, &done, true, true},
		{experiment.ClientFailed, &failed, true, false},
		{experiment.ClientComplete, &failed, true, true},
		{experiment.ClientLost, nil, true, false}, // replaced; the client never started it
		{experiment.ClientPending, nil, true, false},
		{experiment.ClientRunning, nil, true, true},
		{experiment.ClientComplete, nil, false, false}, // collected by the client
		{experiment.ClientRunning, nil, false, true},   // the client does not have it
		{experiment.ClientPending, nil, false, true},
	} {
		c := ClientAlloc{ID: "a1", Tasks: map[string]TaskView{}}
		serverTask := run
		if tc.client != nil {
			c.Tasks["task"] = *tc.client
			serverTask = *tc.client
		}
		view := ClientView{}
		if tc.has {
			view["a1"] = c
		}
		servers := []ServerAlloc{{ID: "a1", Name: "j.g[0]", Node: "c", ClientStatus: tc.server, Tasks: map[string]TaskView{"task": serverTask}}}
		v := Check(servers, map[string]ClientView{"c": view})
		if got := len(v.Lost) == 1; got != tc.lost {
			t.Errorf("servers %s, client task %+v, has=%t: lost %v, want lost=%t", tc.server, tc.client, tc.has, v.Lost, tc.lost)
		}
	}
}

func TestCheckDuplicates(t *testing.T) {
	run := TaskView{State: TaskRunning, Starts: 1}
	servers := []ServerAlloc{
		{ID: "a1", Name: "j.g[0]", Node: "c1", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": run}},
		{ID: "a2", Name: "j.g[0]", Node: "c2", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": run}},
		{ID: "a3", Name: "j.g[1]", Node: "c2", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": {State: TaskRunning, Starts: 2}}},
		{ID: "a4", Name: "j.g[2]", Node: "c2", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": {State: TaskRunning, Restarts: 1, Starts: 2}}},
	}
	clients := map[string]ClientView{
		"c1": {"a1": {ID: "a1", Tasks: map[string]TaskView{"task": run}}},
		"c2": {
			"a2": {ID: "a2", Tasks: map[string]TaskView{"task": run}},
			// Started again after a restore without a restart: a second run.
			"a3": {ID: "a3", Tasks: map[string]TaskView{"task": {State: TaskRunning, Starts: 2}}},
			// Restarted by its restart policy: not a duplicate.
			"a4": {ID: "a4", Tasks: map[string]TaskView{"task": {State: TaskRunning, Restarts: 1, Starts: 2}}},
			// Started again after a failed restore: Nomad's fallback.
			"a5": {ID: "a5", Tasks: map[string]TaskView{"task": {State: TaskRunning, Starts: 2, FailedRestores: 1}}},
			// Once after a failed restore, once more without a reason.
			"a6": {ID: "a6", Tasks: map[string]TaskView{"task": {State: TaskDead, Starts: 3, FailedRestores: 1}}},
		},
	}
	servers = append(servers,
		ServerAlloc{ID: "a5", Name: "j.g[3]", Node: "c2", ClientStatus: experiment.ClientRunning, Tasks: map[string]TaskView{"task": {State: TaskRunning, Starts: 2}}},
		ServerAlloc{ID: "a6", Name: "j.g[4]", Node: "c2", ClientStatus: experiment.ClientComplete, Tasks: map[string]TaskView{"task": {State: TaskDead, Starts: 3}}},
	)
	v := Check(servers, clients)
	if len(v.Lost) != 0 {
		t.Fatalf("lost %v, want none", v.Lost)
	}
	if len(v.Duplicates) != 3 {
		t.Fatalf("duplicates %v, want 3 (a3 started twice, a6 three times, j.g[0] running twice)", v.Duplicates)
	}
	if v.Duplicates[0].Alloc != "a3" || v.Duplicates[1].Alloc != "a6" || v.Duplicates[2].Alloc != "a2" {
		t.Fatalf("duplicates %v, want a3, a6, a2", v.Duplicates)
	}
	if len(v.Rerun) != 1 || v.Rerun[0].Alloc != "a5" {
		t.Fatalf("rerun %v, want a5", v.Rerun)
	}
}

func TestCheckCountsMissingClientViewsAsUnchecked(t *testing.T) {
	servers := []ServerAlloc{
		{ID: "a1", Node: "c1", ClientStatus: experiment.ClientRunning},
		{ID: "a2", Node: "c2", ClientStatus: experiment.ClientRunning},
	}
	v := Check(servers, map[string]ClientView{"c1": nil})
	if v.Checked != 0 || v.Unchecked != 2 || len(v.Lost) != 0 {
		t.Fatalf("checked %d unchecked %d lost %v; want 0, 2, none", v.Checked, v.Unchecked, v.Lost)
	}
}

func TestParseClientState(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "client-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	view, err := ParseClientState(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(view) != 3 {
		t.Fatalf("%d allocations, want 3", len(view))
	}
	if got := view["2a7c0e4f-1d2b-4c3e-9f8a-6b5d4c3b2a19"].Tasks["task"]; got.Starts != 2 || got.FailedRestores != 1 {
		t.Fatalf("restored task: %+v, want 2 starts, 1 failed restore", got)
	}
	a := view["5f0b2a59-5d55-7c0b-2a1f-0f5d3b4b9b11"]
	if !a.Running() || a.Healthy == nil || !*a.Healthy {
		t.Fatalf("running alloc: %+v", a)
	}
	if got := a.Tasks["task"]; got.State != TaskRunning || got.Starts != 1 || got.Restarts != 0 {
		t.Fatalf("running task: %+v", got)
	}
	done := view["9c3e1d7a-0b6f-4e8e-8d0e-2f7a3c1b5e22"]
	if done.Running() || len(done.Tasks) != 0 || done.Healthy != nil {
		t.Fatalf("stopped alloc (no driver handle): %+v", done)
	}
	if _, err := ParseClientState([]byte(`{"Other":1}`)); err == nil {
		t.Fatal("a dump without Allocations parsed")
	}
}
