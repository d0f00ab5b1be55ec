package scale

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// The workloads, in the order a run does them. The rolling deployment (the
// initial one and its update) always runs: it places the allocations the
// others run beside, and the check reads them.
const (
	WorkloadRolling = "rolling"
	// WorkloadBatch is a batch queue: BatchWaves × N one-second batch
	// allocations on a fleet that fits one per node at a time, so the
	// evaluation blocks and unblocks as allocations complete. Figure: the
	// makespan.
	WorkloadBatch = "batch"
	// WorkloadDrain drains a quarter of the nodes at once, every
	// allocation on them migrating (the jobs' migrate max_parallel is their
	// count). Figure: the drain time.
	WorkloadDrain = "drain"
)

// Workloads lists the workloads in run order.
var Workloads = []string{WorkloadRolling, WorkloadBatch, WorkloadDrain}

// Phase names of the workloads after the rolling deployment (the phases
// initial, rolling and settle are experiment's).
const (
	PhaseBatch = "batch"
	PhaseDrain = "drain"
)

// BatchWaves is how many times the fleet's capacity the batch queue asks.
const BatchWaves = 3

// parseWorkloads parses a comma-separated list of workloads; the rolling
// deployment must be one.
func parseWorkloads(s string) ([]string, error) {
	var out []string
	for _, w := range strings.Split(s, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if !slices.Contains(Workloads, w) {
			return nil, fmt.Errorf("-workloads: unknown workload %q (known: %s)", w, strings.Join(Workloads, ", "))
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if !slices.Contains(out, WorkloadRolling) {
		return nil, fmt.Errorf("-workloads %q: %s must be one (it places the allocations the others run beside)", s, WorkloadRolling)
	}
	return out, nil
}

// Has reports whether the scenario runs workload w.
func (s Scenario) Has(w string) bool {
	ws, err := parseWorkloads(s.Workloads)
	return err == nil && slices.Contains(ws, w)
}

// Phases are the run's phases in order: the deployments, the workloads
// after them, the settle.
func (s Scenario) Phases() []string {
	out := []string{experiment.PhaseInitial, experiment.PhaseRolling}
	if s.Has(WorkloadBatch) {
		out = append(out, PhaseBatch)
	}
	if s.Has(WorkloadDrain) {
		out = append(out, PhaseDrain)
	}
	return append(out, experiment.PhaseSettle)
}

// DrainNodes is how many of the nodes the drain drains: a quarter, at
// least one.
func (s Scenario) DrainNodes() int { return max(1, s.Nodes/4) }
