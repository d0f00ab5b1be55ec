package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func allocEvent(id, job, status string, index uint64, modify time.Time, healthy *bool) cluster.Event {
	var e cluster.Event
	e.Topic, e.Index = "Allocation", index
	a := &cluster.AllocStub{ID: id, JobID: job, EvalID: fmt.Sprintf("eval%d", index), ClientStatus: status, ModifyIndex: index, ModifyTime: modify.UnixNano()}
	if healthy != nil {
		a.DeploymentStatus = &cluster.AllocDeploymentStatus{Healthy: healthy}
	}
	e.Payload.Allocation = a
	return e
}

// TestWatch asserts that the watch times each state by the ModifyTime of
// the first event that showed it, ignores replayed events, and counts
// blocked evaluations per job.
func TestWatch(t *testing.T) {
	w := NewWatch()
	t0 := time.Unix(1700000000, 0)
	sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	yes := true
	changed := w.Changed()
	w.Add(allocEvent("a1", "job", experiment.ClientPending, 10, sec(0), nil))
	select {
	case <-changed:
	default:
		t.Error("no change signalled")
	}
	w.Add(allocEvent("a1", "job", experiment.ClientRunning, 11, sec(1), nil))
	w.Add(allocEvent("a1", "job", experiment.ClientRunning, 12, sec(2), &yes)) // a later update: Running stays
	w.Add(allocEvent("a1", "job", experiment.ClientPending, 9, sec(3), nil))   // replayed
	w.Add(allocEvent("a1", "job", experiment.ClientComplete, 13, sec(4), &yes))
	w.Add(allocEvent("b1", "job/dispatch-1", experiment.ClientFailed, 14, sec(5), nil))
	var ev cluster.Event
	ev.Payload.Evaluation = &cluster.Evaluation{ID: "e1", JobID: "job", Status: "blocked"}
	w.Add(ev)
	ev.Payload.Evaluation = &cluster.Evaluation{ID: "e2", JobID: "job", Status: "complete"}
	w.Add(ev)

	got := w.Allocs(Job("job"))
	if len(got) != 1 {
		t.Fatalf("allocs %+v", got)
	}
	r := got[0]
	if r.PlacedBy != "eval10" || r.Last.EvalID != "eval13" {
		t.Errorf("placed by %s, last eval %s: want eval10, eval13", r.PlacedBy, r.Last.EvalID)
	}
	if !r.Running.Equal(sec(1)) || !r.Healthy.Equal(sec(2)) || !r.Terminal.Equal(sec(4)) || r.Last.ClientStatus != experiment.ClientComplete {
		t.Errorf("record %+v", r)
	}
	if d := w.Allocs(Prefix("job/")); len(d) != 1 || !d[0].Terminal.Equal(sec(5)) || !d[0].Running.IsZero() {
		t.Errorf("dispatched %+v", d)
	}
	if n := w.Blocked(Job("job")); n != 1 {
		t.Errorf("blocked %d", n)
	}
}

// TestComplete asserts that complete returns the completed allocations of
// the matched jobs only, and stops at a failed one.
func TestComplete(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	env := &Env{Watch: NewWatch()}
	env.Watch.Add(allocEvent("a1", "job", experiment.ClientComplete, 10, t0, nil))
	env.Watch.Add(allocEvent("a2", "job", experiment.ClientRunning, 11, t0, nil))
	env.Watch.Add(allocEvent("b1", "other", experiment.ClientComplete, 12, t0, nil))
	done, err := env.complete(Job("job"))
	if err != nil || len(done) != 1 || done[0].Last.ID != "a1" {
		t.Fatalf("complete = %+v, %v; want a1 only", done, err)
	}
	env.Watch.Add(allocEvent("a2", "job", experiment.ClientFailed, 13, t0, nil))
	if _, err := env.complete(Job("job")); err == nil {
		t.Fatal("no error for a failed allocation")
	}
}
