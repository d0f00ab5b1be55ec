package experiment

import (
	"context"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// ServerMetrics are the server counters every experiment reads.
var ServerMetrics = []string{cluster.MetricUpdateAlloc, cluster.MetricRaftApply, cluster.MetricFSMAllocClientUpdate}

// ServerSums are the server summaries whose sum (not count) every
// experiment reads, under SumKey: the time the servers took to handle
// Node.UpdateAlloc (milliseconds) and the bytes of the Raft log entries a
// server stored. Counters keeps them as it keeps the counters.
var ServerSums = []string{cluster.MetricUpdateAlloc, cluster.MetricRaftLogSize}

// SumKey is the key of a summary's sum in Counters' totals and in a
// Snapshot's Server map.
func SumKey(metric string) string { return metric + "_sum" }

// highestOverServers are the totals that are the most one server counted
// rather than the sum: every server applies and stores every log entry.
var highestOverServers = map[string]bool{
	cluster.MetricFSMAllocClientUpdate: true,
	SumKey(cluster.MetricRaftLogSize):  true,
}

// PollInterval is how often Counters.Run scrapes the servers: well within
// the 60 s after which an idle series expires.
const PollInterval = 5 * time.Second

// queryTimeout bounds one scrape of one server: on a loaded machine servers
// take seconds to answer.
const queryTimeout = 15 * time.Second

// Counters is the one reading of the server counters of every experiment
// (bench, faults, scale; docs/bench.md "The server counters"):
// Node.UpdateAlloc RPCs and Raft applies summed over the servers, whatever
// server leads. Only the leader counts them, a loaded cluster changes
// leaders, and a server's series expire after 60 s without an update
// (Nomad's Prometheus sink), so reading the leader at the phase edges
// alone loses what an earlier leader counted. It polls every server and
// adds each counter's increases; a series that reappears lower started
// again from 0. Every server applies every log entry, so the FSM's counter
// is the most any server counted, not the sum.
type Counters struct {
	pollMu sync.Mutex // a scrape is observed before the next one is taken

	mu    sync.Mutex
	last  map[string]map[string]float64 // server -> metric -> last value
	total map[string]map[string]float64 // server -> metric -> its increases
}

// NewCounters returns a poller that has read nothing yet.
func NewCounters() *Counters {
	return &Counters{last: map[string]map[string]float64{}, total: map[string]map[string]float64{}}
}

// Observe adds a server's scrape.
func (t *Counters) Observe(server string, m cluster.Metrics) {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, total := t.last[server], t.total[server]
	if last == nil {
		last, total = map[string]float64{}, map[string]float64{}
		t.last[server], t.total[server] = last, total
	}
	add := func(name string, v float64) {
		prev, seen := last[name]
		switch {
		case !seen:
			total[name] += v
		case v >= prev:
			total[name] += v - prev
		default:
			total[name] += v
		}
		last[name] = v
	}
	for _, name := range ServerMetrics {
		// Absent: expired or never counted, the last value stands.
		if v, ok := m.Value(name); ok {
			add(name, v)
		}
	}
	for _, name := range ServerSums {
		if v, ok := m.Sum(name); ok {
			add(SumKey(name), v)
		}
	}
}

// Totals returns the counters over the servers by metric: summed, but the
// FSM's the most one server counted. Two readings' difference is what the
// servers counted in between.
func (t *Counters) Totals() map[string]float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]float64{}
	for _, total := range t.total {
		for k, v := range total {
			if highestOverServers[k] {
				out[k] = max(out[k], v)
			} else {
				out[k] += v
			}
		}
	}
	return out
}

// Poll scrapes every running server now, but those skip names (a paused
// server, which would not answer).
func (t *Counters) Poll(ctx context.Context, servers []*cluster.Agent, skip ...*cluster.Agent) {
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	for _, s := range servers {
		if exited, _ := s.Exited(); exited || contains(skip, s) {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		m, err := s.API.Metrics(qctx)
		cancel()
		if err == nil {
			t.Observe(s.Spec.Name, m)
		}
	}
}

// Read polls the servers and returns the totals.
func (t *Counters) Read(ctx context.Context, servers []*cluster.Agent, skip ...*cluster.Agent) map[string]float64 {
	t.Poll(ctx, servers, skip...)
	return t.Totals()
}

// Run polls every PollInterval until ctx ends: more often than series
// expire.
func (t *Counters) Run(ctx context.Context, servers []*cluster.Agent) {
	for {
		t.Poll(ctx, servers)
		select {
		case <-ctx.Done():
			return
		case <-time.After(PollInterval):
		}
	}
}

func contains(agents []*cluster.Agent, a *cluster.Agent) bool {
	for _, b := range agents {
		if a == b {
			return true
		}
	}
	return false
}
