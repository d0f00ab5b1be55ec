package bench

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// AllocRecord is what the servers learned of one allocation and when, by
// their clock: each time is the ModifyTime of the first event that showed
// the state — for a client's update, when the servers received it.
type AllocRecord struct {
	// Last is the allocation as the latest event showed it: its client
	// status, task states and health with the client's times.
	Last cluster.AllocStub
	// PlacedBy is the evaluation that placed the allocation: its EvalID in
	// the first event (a later stop by another evaluation replaces it).
	PlacedBy string
	// Running, Terminal and Healthy are when the servers first held the
	// allocation running, terminal on its client (complete, failed, lost)
	// and with a deployment health; zero while they have not.
	Running, Terminal, Healthy time.Time
}

// Watch records the allocations and blocked evaluations the servers
// publish on their event stream, for the workloads to wait on and to time
// by the servers' clock rather than by when a poll saw a change.
type Watch struct {
	mu      sync.Mutex
	allocs  map[string]*AllocRecord
	blocked map[string]int // blocked evaluations seen, by job
	changed chan struct{}  // closed and replaced on every event
	err     error          // the stream's last error
}

// NewWatch returns an empty watch; Follow feeds it.
func NewWatch() *Watch {
	return &Watch{allocs: map[string]*AllocRecord{}, blocked: map[string]int{}, changed: make(chan struct{})}
}

// Follow streams the cluster's events into w until ctx ends, reconnecting
// (to the leader, or any running server) from the last index seen when the
// stream breaks, as when the leader changes.
func (w *Watch) Follow(ctx context.Context, c *cluster.Cluster) {
	var index uint64
	for ctx.Err() == nil {
		err := c.API(ctx).Events(ctx, index, func(e cluster.Event) {
			if e.Index > index {
				index = e.Index
			}
			w.Add(e)
		})
		w.mu.Lock()
		w.err = err
		w.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// terminal reports whether a client status is terminal.
func terminal(status string) bool {
	return status == experiment.ClientComplete || status == experiment.ClientFailed || status == experiment.ClientLost
}

// Add records one event.
func (w *Watch) Add(e cluster.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		close(w.changed)
		w.changed = make(chan struct{})
	}()
	if ev := e.Payload.Evaluation; ev != nil && ev.Status == "blocked" {
		w.blocked[ev.JobID]++
	}
	a := e.Payload.Allocation
	if a == nil {
		return
	}
	r := w.allocs[a.ID]
	if r == nil {
		r = &AllocRecord{PlacedBy: a.EvalID}
		w.allocs[a.ID] = r
	}
	if a.ModifyIndex < r.Last.ModifyIndex {
		return // replayed after a reconnect
	}
	r.Last = *a
	at := time.Unix(0, a.ModifyTime)
	first := func(t *time.Time) {
		if t.IsZero() {
			*t = at
		}
	}
	switch {
	case a.ClientStatus == experiment.ClientRunning:
		first(&r.Running)
	case terminal(a.ClientStatus):
		first(&r.Terminal)
	}
	if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
		first(&r.Healthy)
	}
}

// Allocs returns copies of the records of the jobs match accepts.
func (w *Watch) Allocs(match func(jobID string) bool) []AllocRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []AllocRecord
	for _, r := range w.allocs {
		if match(r.Last.JobID) {
			out = append(out, *r)
		}
	}
	return out
}

// Blocked returns how many blocked evaluations the jobs match accepts
// had.
func (w *Watch) Blocked(match func(jobID string) bool) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for job, c := range w.blocked {
		if match(job) {
			n += c
		}
	}
	return n
}

// Changed returns a channel closed at the next event.
func (w *Watch) Changed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

// Err returns the stream's last error, nil while it has none.
func (w *Watch) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Job matches one job's ID; Prefix the jobs whose ID starts with a prefix
// (a parameterized or periodic job's children).
func Job(id string) func(string) bool { return func(j string) bool { return j == id } }

// Prefix matches the jobs whose ID starts with p.
func Prefix(p string) func(string) bool {
	return func(j string) bool { return strings.HasPrefix(j, p) }
}
