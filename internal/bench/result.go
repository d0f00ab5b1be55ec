package bench

import (
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// RoundRun is the result of one scenario run.
type RoundRun struct {
	Label  string `json:"label"`
	Round  int    `json:"round"`
	Binary string `json:"binary"`
	// Version and Revision are what `nomad version` says, run in the
	// sandbox.
	Version  string `json:"version,omitempty"`
	Revision string `json:"revision,omitempty"`
	// Count is the N of reports written before the workload suite.
	Count    int    `json:"count,omitempty"`
	Topology string `json:"topology,omitempty"`
	// StartupSeconds is how long the cluster took to be ready.
	StartupSeconds float64   `json:"startup_seconds"`
	TotalSeconds   float64   `json:"total_seconds"`
	Started        time.Time `json:"started"`
	// Workloads are the run's workloads, in the order they ran.
	Workloads []WorkloadRun `json:"workloads,omitempty"`
	// Phases are the rolling scenario's phases of reports written before
	// the workload suite (ReadReport turns them into a rolling workload).
	Phases []experiment.Phase `json:"phases,omitempty"`
	Error  string             `json:"error,omitempty"`
	// Attempt is 1, or 2 when the first attempt failed and was retried.
	Attempt int `json:"attempt,omitempty"`
	// LoadAvg is the machine's 1-minute load average before the run and
	// at each phase edge.
	LoadAvg []float64 `json:"load_avg,omitempty"`
	// OtherCores is how many cores the machine's other processes (not
	// this run's sandbox) used on average during the run.
	OtherCores *float64 `json:"other_cores,omitempty"`
}

// MaxLoad returns the highest load average of the run, 0 for none.
func (r *RoundRun) MaxLoad() float64 {
	m := 0.0
	for _, l := range r.LoadAvg {
		if l > m {
			m = l
		}
	}
	return m
}

// Workload returns the run's result of the named workload, or nil.
func (r *RoundRun) Workload(name string) *WorkloadRun {
	for i := range r.Workloads {
		if r.Workloads[i].Name == name {
			return &r.Workloads[i]
		}
	}
	return nil
}

// Phase returns the named phase, or nil.
func (r *RoundRun) Phase(name string) *experiment.Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// Total sums a figure over the run's phases.
func (r *RoundRun) Total(f func(*experiment.Phase) float64) float64 {
	var t float64
	for i := range r.Phases {
		t += f(&r.Phases[i])
	}
	return t
}

// ClientMetrics reports whether the run's clients exposed the fork's
// client metrics.
func (r *RoundRun) ClientMetrics() bool {
	for _, p := range r.Phases {
		if p.ClientRPCs != nil {
			return true
		}
	}
	return false
}
