package bench

import (
	"fmt"
	"time"
)

// Phase names, in order.
const (
	PhaseInitial = "initial"
	PhaseRolling = "rolling"
	PhaseSettle  = "settle"
)

// Phases lists the phase names in order.
var Phases = []string{PhaseInitial, PhaseRolling, PhaseSettle}

// Snapshot is what the bench reads at a phase edge.
type Snapshot struct {
	At time.Time `json:"at"`
	// Server holds the server's counters by metric name (absent metrics
	// are missing).
	Server map[string]float64 `json:"server"`
	// ClientRPCs, ClientSent and ClientBuffered are the fork's client
	// metrics summed over the clients; nil when no client exposes them.
	ClientRPCs     map[string]float64 `json:"client_rpcs,omitempty"`
	ClientSent     map[string]float64 `json:"client_sent,omitempty"`
	ClientBuffered *float64           `json:"client_buffered,omitempty"`
	ServerCPU      CPU                `json:"server_cpu"`
	ClientCPU      CPU                `json:"client_cpu"`
	Transitions    int                `json:"transitions"`
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
	p.UpdateAllocRPCs = counter(MetricUpdateAlloc)
	p.RaftApplies = counter(MetricRaftApply)
	p.FSMAllocClientUpdates = counter(MetricFSMAllocClientUpdate)
	p.ServerCPU = b.ServerCPU.Self - a.ServerCPU.Self
	p.ClientCPU = b.ClientCPU.Self - a.ClientCPU.Self
	p.ClientTreeCPU = b.ClientCPU.Tree - a.ClientCPU.Tree
	p.Transitions = b.Transitions - a.Transitions
	if a.ClientRPCs != nil || b.ClientRPCs != nil {
		p.ClientRPCs = map[string]float64{}
		for _, k := range union(Triggers, a.ClientRPCs, b.ClientRPCs) {
			d, note := delta(a.ClientRPCs, b.ClientRPCs, k)
			p.ClientRPCs[k] = d
			if note != "" {
				p.Notes = append(p.Notes, "client "+MetricClientUpdateRPCs+" "+note)
			}
		}
	}
	if a.ClientSent != nil || b.ClientSent != nil {
		p.ClientSent = map[string]float64{}
		for _, k := range union(Priorities, a.ClientSent, b.ClientSent) {
			d, note := delta(a.ClientSent, b.ClientSent, k)
			p.ClientSent[k] = d
			if note != "" {
				p.Notes = append(p.Notes, "client "+MetricClientUpdatesSent+" "+note)
			}
		}
	}
	p.ClientBuffered = b.ClientBuffered
	return p
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

// Run is the result of one scenario run.
type Run struct {
	Label   string `json:"label"`
	Round   int    `json:"round"`
	Binary  string `json:"binary"`
	Version string `json:"version,omitempty"` // `nomad version`, run in the sandbox
	Count   int    `json:"count"`
	// StartupSeconds is how long the cluster took to be ready.
	StartupSeconds float64   `json:"startup_seconds"`
	TotalSeconds   float64   `json:"total_seconds"`
	Started        time.Time `json:"started"`
	Phases         []Phase   `json:"phases"`
	Error          string    `json:"error,omitempty"`
	// Attempt is 1, or 2 when the first attempt failed and was retried.
	Attempt int `json:"attempt,omitempty"`
}

// Phase returns the named phase, or nil.
func (r *Run) Phase(name string) *Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// Total sums a figure over the run's phases.
func (r *Run) Total(f func(*Phase) float64) float64 {
	var t float64
	for i := range r.Phases {
		t += f(&r.Phases[i])
	}
	return t
}

// ClientMetrics reports whether the run's clients exposed the fork's
// client metrics.
func (r *Run) ClientMetrics() bool {
	for _, p := range r.Phases {
		if p.ClientRPCs != nil {
			return true
		}
	}
	return false
}
