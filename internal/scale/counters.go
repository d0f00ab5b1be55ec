package scale

import (
	"context"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench/cluster"
)

// counterMetrics are the server counters the scale run reads.
var counterMetrics = []string{cluster.MetricUpdateAlloc, cluster.MetricRaftApply, cluster.MetricFSMAllocClientUpdate}

// serverCounters sums the servers' counters over a run whatever server
// leads: only the leader counts Node.UpdateAlloc RPCs and Raft applies, a
// loaded cluster changes leaders, and a server's series expire after 60 s
// without an update (Nomad's Prometheus sink), so reading the leader at the
// phase edges alone loses what an earlier leader counted. It polls every
// server and adds each counter's increases; a series that reappears lower
// started again from 0. Every server applies every log entry, so the FSM's
// counter is the most any server counted, not the sum.
type serverCounters struct {
	pollMu sync.Mutex // a scrape is observed before the next one is taken

	mu    sync.Mutex
	last  map[string]map[string]float64 // server -> metric -> last value
	total map[string]map[string]float64 // server -> metric -> its increases
}

func newServerCounters() *serverCounters {
	return &serverCounters{last: map[string]map[string]float64{}, total: map[string]map[string]float64{}}
}

// observe adds a server's scrape.
func (t *serverCounters) observe(server string, m cluster.Metrics) {
	t.mu.Lock()
	defer t.mu.Unlock()
	last, total := t.last[server], t.total[server]
	if last == nil {
		last, total = map[string]float64{}, map[string]float64{}
		t.last[server], t.total[server] = last, total
	}
	for _, name := range counterMetrics {
		v, ok := m.Value(name)
		if !ok {
			continue // expired or never counted: the last value stands
		}
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
}

// totals returns the counters over the servers: summed, but the FSM's the
// most one server counted.
func (t *serverCounters) totals() map[string]float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]float64{}
	for _, total := range t.total {
		for k, v := range total {
			if k == cluster.MetricFSMAllocClientUpdate {
				out[k] = max(out[k], v)
			} else {
				out[k] += v
			}
		}
	}
	return out
}

// poll scrapes every running server now.
func (t *serverCounters) poll(ctx context.Context, servers []*cluster.Agent) {
	t.pollMu.Lock()
	defer t.pollMu.Unlock()
	for _, s := range servers {
		if exited, _ := s.Exited(); exited {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		m, err := s.API.Metrics(qctx)
		cancel()
		if err == nil {
			t.observe(s.Spec.Name, m)
		}
	}
}

// run polls every interval until ctx ends: more often than series expire.
func (t *serverCounters) run(ctx context.Context, servers []*cluster.Agent, interval time.Duration) {
	for {
		t.poll(ctx, servers)
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
