package experiment

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func scrape(t *testing.T, metric string, v float64) cluster.Metrics {
	t.Helper()
	m, err := cluster.ParseMetrics(strings.NewReader("# TYPE " + metric + " counter\n" + metric + " " + strconv.FormatFloat(v, 'f', -1, 64) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCounters sums the counters over the servers across a leader change,
// a series that expired and one that started again from 0.
func TestCounters(t *testing.T) {
	raft := func(v float64) cluster.Metrics { return scrape(t, "nomad_raft_apply", v) }
	c := NewCounters()
	c.Observe("server1", raft(100)) // before the run
	base := c.Totals()[cluster.MetricRaftApply]
	c.Observe("server1", raft(150))         // +50
	c.Observe("server2", raft(30))          // a new leader: +30
	c.Observe("server1", cluster.Metrics{}) // server1's series expired: +0
	c.Observe("server2", raft(70))          // +40
	c.Observe("server1", raft(5))           // server1 leads again from 0: +5
	if got := c.Totals()[cluster.MetricRaftApply] - base; got != 125 {
		t.Fatalf("summed %g Raft applies, want 125", got)
	}

	// Every server applies every entry: the FSM's count is the highest.
	fsm := func(v float64) cluster.Metrics { return scrape(t, "nomad_nomad_fsm_alloc_client_update", v) }
	c = NewCounters()
	c.Observe("server1", fsm(40))
	c.Observe("server2", fsm(38))
	c.Observe("server3", fsm(40))
	if got := c.Totals()[cluster.MetricFSMAllocClientUpdate]; got != 40 {
		t.Fatalf("FSM applies %g, want 40", got)
	}
}

// TestCountersSums keeps the sums of the summaries: the UpdateAlloc time
// summed over the servers, the Raft log bytes the most one server stored.
func TestCountersSums(t *testing.T) {
	summary := func(metric string, count, sum float64) cluster.Metrics {
		t.Helper()
		m, err := cluster.ParseMetrics(strings.NewReader("# TYPE " + metric + " summary\n" +
			metric + "_sum " + strconv.FormatFloat(sum, 'f', -1, 64) + "\n" +
			metric + "_count " + strconv.FormatFloat(count, 'f', -1, 64) + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	c := NewCounters()
	c.Observe("server1", summary(cluster.MetricUpdateAlloc, 10, 50))
	c.Observe("server2", summary(cluster.MetricUpdateAlloc, 4, 20))
	c.Observe("server1", summary(cluster.MetricRaftLogSize, 3, 3000))
	c.Observe("server2", summary(cluster.MetricRaftLogSize, 3, 3000))
	c.Observe("server3", summary(cluster.MetricRaftLogSize, 2, 2000))
	tot := c.Totals()
	for key, want := range map[string]float64{
		cluster.MetricUpdateAlloc:                  14,
		SumKey(cluster.MetricUpdateAlloc):          70,
		SumKey(cluster.MetricRaftLogSize):          3000,
		cluster.MetricRaftApply:                    0,
		SumKey(cluster.MetricFSMAllocClientUpdate): 0,
	} {
		if got := tot[key]; got != want {
			t.Errorf("total %s = %g, want %g", key, got, want)
		}
	}
}
