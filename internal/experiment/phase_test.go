package experiment

import (
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func TestDiff(t *testing.T) {
	t0 := time.Unix(1000, 0)
	two := 2.0
	a := Snapshot{
		At:          t0,
		Server:      map[string]float64{cluster.MetricUpdateAlloc: 10, cluster.MetricRaftApply: 50},
		ServerCPU:   CPU{Self: 1, Tree: 1},
		ClientCPU:   CPU{Self: 3, Tree: 7},
		Transitions: 4,
		Leader:      "server2",
		LeaderCPU:   0.5,
		LinksBefore: &cluster.LinkCounters{Sent: 100, Received: 1000},
		LinksAfter:  &cluster.LinkCounters{Sent: 5100, Received: 1500},
	}
	b := Snapshot{
		At:             t0.Add(12 * time.Second),
		Server:         map[string]float64{cluster.MetricUpdateAlloc: 110, cluster.MetricRaftApply: 20, cluster.MetricFSMAllocClientUpdate: 90},
		ServerCPU:      CPU{Self: 2.5, Tree: 2.5},
		ClientCPU:      CPU{Self: 5, Tree: 12},
		Transitions:    604,
		ClientRPCs:     map[string]float64{"urgent": 70, "tick": 25},
		ClientSent:     map[string]float64{"urgent": 300},
		ClientBuffered: &two,
		Leader:         "server2",
		LeaderCPU:      1.25,
		LinksBefore:    &cluster.LinkCounters{Sent: 25100, Received: 91500},
		LinksAfter:     &cluster.LinkCounters{Sent: 30000, Received: 92000},
	}
	p := Diff(PhaseInitial, a, b)
	if p.Seconds != 12 || p.UpdateAllocRPCs != 100 || p.FSMAllocClientUpdates != 90 {
		t.Errorf("diff %+v", p)
	}
	if p.RaftApplies != 20 || len(p.Notes) != 1 {
		t.Errorf("a reset counter counts from the reset and is noted: %v %v", p.RaftApplies, p.Notes)
	}
	if p.ServerCPU != 1.5 || p.ClientCPU != 2 || p.ClientTreeCPU != 5 || p.Transitions != 600 {
		t.Errorf("cpu/transitions %+v", p)
	}
	if p.ClientRPCs["urgent"] != 70 || p.ClientRPCs["tick"] != 25 || p.ClientRPCs["retry"] != 0 {
		t.Errorf("client rpcs %v", p.ClientRPCs)
	}
	if p.ClientSent["typical"] != 0 || p.ClientSent["urgent"] != 300 || *p.ClientBuffered != 2 {
		t.Errorf("client sent %v", p.ClientSent)
	}
	if p.LeaderCPU == nil || *p.LeaderCPU != 0.75 {
		t.Errorf("leader cpu %v", p.LeaderCPU)
	}
	// The bytes count from after a's scrapes to before b's.
	if p.ClientBytes == nil || *p.ClientBytes != (cluster.LinkCounters{Sent: 20000, Received: 90000}) {
		t.Errorf("client bytes %+v", p.ClientBytes)
	}
	b.Leader = "server3"
	if p := Diff(PhaseInitial, a, b); p.LeaderCPU != nil || len(p.Notes) != 2 {
		t.Errorf("a new leader: leader cpu %v, notes %q", p.LeaderCPU, p.Notes)
	}
	up := Diff(PhaseRolling, Snapshot{Server: map[string]float64{}}, Snapshot{Server: map[string]float64{}})
	if up.ClientRPCs != nil || up.ClientSent != nil || up.ClientBuffered != nil {
		t.Errorf("upstream phases have no client metrics: %+v", up)
	}
	if up.ClientBytes != nil {
		t.Errorf("the single topology has no link bytes: %+v", up.ClientBytes)
	}
	if up.RaftBytes != nil {
		t.Errorf("no Raft log size metric: no Raft bytes, got %v", *up.RaftBytes)
	}
	sums := Diff(PhaseRolling,
		Snapshot{Server: map[string]float64{SumKey(cluster.MetricUpdateAlloc): 100, SumKey(cluster.MetricRaftLogSize): 4000}},
		Snapshot{Server: map[string]float64{SumKey(cluster.MetricUpdateAlloc): 350, SumKey(cluster.MetricRaftLogSize): 9000}})
	if sums.UpdateAllocMillis != 250 || sums.RaftBytes == nil || *sums.RaftBytes != 5000 {
		t.Errorf("sums: UpdateAlloc %g ms, Raft bytes %v", sums.UpdateAllocMillis, sums.RaftBytes)
	}
}
