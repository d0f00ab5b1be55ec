package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// Phase names, in order.
const (
	PhaseInitial = "initial"
	PhaseRolling = "rolling"
	PhaseSettle  = "settle"
)

// Phases lists the phase names in order.
var Phases = []string{PhaseInitial, PhaseRolling, PhaseSettle}

// Snapshot is what an experiment reads at a phase edge.
type Snapshot struct {
	At time.Time `json:"at"`
	// Leader is the leader when the snapshot was taken.
	Leader string `json:"leader,omitempty"`
	// Server holds the server counters by metric name: Counters' totals,
	// summed over the servers.
	Server map[string]float64 `json:"server"`
	// ClientRPCs, ClientSent and ClientBuffered are the fork's client
	// metrics summed over the clients; nil when no client exposes them.
	ClientRPCs     map[string]float64 `json:"client_rpcs,omitempty"`
	ClientSent     map[string]float64 `json:"client_sent,omitempty"`
	ClientBuffered *float64           `json:"client_buffered,omitempty"`
	// ServerCPU and ClientCPU are summed over the servers and clients;
	// LeaderCPU is the leader's own.
	ServerCPU   CPU     `json:"server_cpu"`
	LeaderCPU   float64 `json:"leader_cpu"`
	ClientCPU   CPU     `json:"client_cpu"`
	Transitions int     `json:"transitions"`
	// LinksBefore and LinksAfter are the clients' link counters (summed)
	// before and after the bench scraped the clients; nil on the single
	// topology, where clients have no links of their own.
	LinksBefore *cluster.LinkCounters `json:"links_before,omitempty"`
	LinksAfter  *cluster.LinkCounters `json:"links_after,omitempty"`
	// Load1 is the machine's 1-minute load average.
	Load1 float64 `json:"load1"`
}

// Phase is the difference of two snapshots: the figures of one phase.
type Phase struct {
	Name string `json:"name"`
	// Seconds is the phase's length: for a deployment, from registering
	// the job to seeing the deployment successful.
	Seconds               float64 `json:"seconds"`
	UpdateAllocRPCs       float64 `json:"update_alloc_rpcs"`
	RaftApplies           float64 `json:"raft_applies"`
	FSMAllocClientUpdates float64 `json:"fsm_alloc_client_updates"`
	ServerCPU             float64 `json:"server_cpu_seconds"`
	// UpdateAllocMillis is the time the servers took to handle the
	// phase's Node.UpdateAlloc RPCs, summed (milliseconds).
	UpdateAllocMillis float64 `json:"update_alloc_server_ms,omitempty"`
	// RaftBytes are the bytes of the Raft log entries of the phase (the
	// most one server stored); nil when the servers expose no such metric.
	RaftBytes *float64 `json:"raft_bytes,omitempty"`
	// LeaderCPU is the leader's CPU seconds; nil when the leader changed
	// during the phase.
	LeaderCPU *float64 `json:"leader_cpu_seconds,omitempty"`
	// ClientBytes are the bytes the clients' hosts sent (RPCs to the
	// servers) and received (the servers' answers, allocations pulled) on
	// their links, IP and TCP headers included; nil on the single topology.
	ClientBytes *cluster.LinkCounters `json:"client_link_bytes,omitempty"`
	// ClientCPU is the client agents' own CPU seconds; ClientTreeCPU adds
	// their children (a logmon process per task).
	ClientCPU     float64 `json:"client_cpu_seconds"`
	ClientTreeCPU float64 `json:"client_tree_cpu_seconds"`
	// Transitions is the number of ClientStatus transitions of the job's
	// allocations the server learned of in the phase.
	Transitions int `json:"client_status_transitions"`
	// The fork's client metrics; nil on versions that lack them.
	ClientRPCs     map[string]float64 `json:"client_rpcs,omitempty"`
	ClientSent     map[string]float64 `json:"client_updates_sent,omitempty"`
	ClientBuffered *float64           `json:"client_updates_buffered_at_end,omitempty"`
	Notes          []string           `json:"notes,omitempty"`
}

// Diff returns the phase between snapshots a and b. A counter that is
// lower at b than at a was reset (go-metrics' Prometheus sink drops series
// idle for 60 s); the phase then counts b's value and notes it.
func Diff(name string, a, b Snapshot) Phase {
	p := Phase{Name: name, Seconds: b.At.Sub(a.At).Seconds()}
	counter := func(metric string) float64 {
		d, note := delta(a.Server, b.Server, metric)
		if note != "" {
			p.Notes = append(p.Notes, note)
		}
		return d
	}
	if a.Leader != b.Leader {
		p.Notes = append(p.Notes, fmt.Sprintf("the leader changed from %s to %s during the phase", a.Leader, b.Leader))
	}
	p.UpdateAllocRPCs = counter(cluster.MetricUpdateAlloc)
	p.RaftApplies = counter(cluster.MetricRaftApply)
	p.FSMAllocClientUpdates = counter(cluster.MetricFSMAllocClientUpdate)
	p.UpdateAllocMillis = counter(SumKey(cluster.MetricUpdateAlloc))
	if _, ok := b.Server[SumKey(cluster.MetricRaftLogSize)]; ok {
		raft := counter(SumKey(cluster.MetricRaftLogSize))
		p.RaftBytes = &raft
	}
	p.ServerCPU = b.ServerCPU.Self - a.ServerCPU.Self
	if a.Leader == b.Leader {
		cpu := b.LeaderCPU - a.LeaderCPU
		p.LeaderCPU = &cpu
	}
	if a.LinksAfter != nil && b.LinksBefore != nil {
		bytes := b.LinksBefore.Sub(*a.LinksAfter)
		p.ClientBytes = &bytes
	}
	p.ClientCPU = b.ClientCPU.Self - a.ClientCPU.Self
	p.ClientTreeCPU = b.ClientCPU.Tree - a.ClientCPU.Tree
	p.Transitions = b.Transitions - a.Transitions
	p.ClientRPCs = p.clientDelta(cluster.MetricClientUpdateRPCs, cluster.Triggers, a.ClientRPCs, b.ClientRPCs)
	p.ClientSent = p.clientDelta(cluster.MetricClientUpdatesSent, cluster.Priorities, a.ClientSent, b.ClientSent)
	p.ClientBuffered = b.ClientBuffered
	return p
}

// clientDelta returns the difference of a client metric's labelled
// counters (keys first), noting resets; nil when neither reading has it.
func (p *Phase) clientDelta(metric string, keys []string, a, b map[string]float64) map[string]float64 {
	if a == nil && b == nil {
		return nil
	}
	out := map[string]float64{}
	for _, k := range union(keys, a, b) {
		d, note := delta(a, b, k)
		out[k] = d
		if note != "" {
			p.Notes = append(p.Notes, "client "+metric+" "+note)
		}
	}
	return out
}

func delta(a, b map[string]float64, key string) (float64, string) {
	va, vb := a[key], b[key]
	if vb < va {
		return vb, fmt.Sprintf("%s was reset during the phase (%g -> %g): counted from the reset", key, va, vb)
	}
	return vb - va, ""
}

// union returns keys, then any other keys of the maps.
func union(keys []string, maps ...map[string]float64) []string {
	out := append([]string(nil), keys...)
	seen := map[string]bool{}
	for _, k := range keys {
		seen[k] = true
	}
	for _, m := range maps {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// StartSnapshot starts a snapshot: the time, the load, the leader, and
// the server counters (counters' totals after a poll of every running
// server but skip). It returns the leader.
func StartSnapshot(ctx context.Context, c *cluster.Cluster, counters *Counters, skip ...*cluster.Agent) (Snapshot, *cluster.Agent, error) {
	sn := Snapshot{At: time.Now()}
	sn.Load1, _ = LoadAverage()
	leader, err := c.Leader(ctx)
	if err != nil || leader == nil {
		return sn, nil, fmt.Errorf("finding the leader: %v", err)
	}
	sn.Leader = leader.Spec.Name
	sn.Server = counters.Read(ctx, c.Servers, skip...)
	return sn, leader, nil
}

// SetServerCPU sets the snapshot's CPU of the servers and of the leader
// from procs.
func (sn *Snapshot) SetServerCPU(procs ProcTable, servers []*cluster.Agent, leader *cluster.Agent) {
	sn.ServerCPU = CPU{}
	for _, a := range servers {
		cpu := procs.CPUOf(a.PID())
		sn.ServerCPU.Self += cpu.Self
		sn.ServerCPU.Tree += cpu.Tree
	}
	sn.LeaderCPU = procs.CPUOf(leader.PID()).Self
}
