package faults

import (
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Result is one scenario run of one binary.
type Result struct {
	Fault   string `json:"fault"`
	Label   string `json:"label"`
	Version string `json:"version,omitempty"`
	Count   int    `json:"count"`
	Allocs  int    `json:"allocs"` // allocations of the job the servers hold at the end
	Verdict `json:"verdict"`
	// FaultSeconds is how long the fault lasted (from injecting it to its
	// end: a new leader, the client back, the link up, the leader resumed).
	FaultSeconds float64 `json:"fault_seconds"`
	// ConvergeSeconds is the time from the fault's end until the servers'
	// view converged (deployment successful, every allocation of the new
	// version running and healthy, nothing pending, unknown or stopping);
	// nil when it did not converge within the bound.
	ConvergeSeconds *float64 `json:"converge_seconds,omitempty"`
	// ExpectedLost are the allocations whose update the control scenario
	// dropped on purpose.
	ExpectedLost []string `json:"expected_lost,omitempty"`
	// RPCs and RaftApplies are the Node.UpdateAlloc RPCs and Raft applies
	// the servers counted from before the rolling deployment to the end,
	// summed over the servers (experiment.Counters: a killed server's count
	// up to its last poll is kept).
	RPCs         float64 `json:"update_alloc_rpcs"`
	RaftApplies  float64 `json:"raft_applies"`
	TotalSeconds float64 `json:"total_seconds"`
	// Load is the machine's 1-minute load average when the fault ended:
	// times to converge stretch with it.
	Load float64 `json:"load1,omitempty"`
	// Upstream is the label of the upstream binary a pair scenario ran
	// beside Label; Steps are the upgrade scenario's swaps.
	Upstream string        `json:"upstream,omitempty"`
	Steps    []UpgradeStep `json:"steps,omitempty"`
	// Killed is the task (TaskKey) whose process the upgrade control
	// killed while its client was stopped.
	Killed string   `json:"killed,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// SetError records the run's error.
func (r *Result) SetError(err string) { r.Error = err }

// upgradeSwaps is the number of swaps of an upgrade run: to the tested
// binary, back, and the control's plain restart.
const upgradeSwaps = 3

// OK reports whether the run shows nothing lost, no duplicate run, and
// convergence.
func (r *Result) OK() bool {
	if f, err := LookupFault(r.Fault); err == nil && f.Upgrade {
		steps := r.upgradeOK
		if f.Control {
			steps = r.controlOK
		}
		return r.Error == "" && steps() && len(r.Lost) == 0 && len(r.Duplicates) == 0 && r.Unchecked == 0 && r.Checked > 0
	}
	return r.Error == "" && r.lostAsExpected() && len(r.Duplicates) == 0 && r.ConvergeSeconds != nil && r.Unchecked == 0
}

// upgradeOK reports whether the upgrade run made both swaps and each was
// ok.
func (r *Result) upgradeOK() bool {
	if len(r.Steps) != upgradeSwaps {
		return false
	}
	for i := range r.Steps {
		if !r.Steps[i].OK() {
			return false
		}
	}
	return true
}

// controlOK reports whether the upgrade control's run found exactly the
// task it killed: the first swap reports problems, each naming the
// killed task's allocation, every other task process kept; the other
// swaps are ok.
func (r *Result) controlOK() bool {
	if len(r.Steps) != upgradeSwaps || r.Killed == "" {
		return false
	}
	first := r.Steps[0]
	alloc, _, _ := strings.Cut(r.Killed, "/")
	if len(first.Problems) == 0 || first.SamePIDs != first.Tasks-1 || first.ReadySeconds == nil || first.UpdateSeconds == nil {
		return false
	}
	for _, p := range append(append([]string(nil), first.Problems...), first.LogErrors...) {
		if !strings.Contains(p, experiment.ShortID(alloc)) {
			return false
		}
	}
	for i := range r.Steps[1:] {
		if !r.Steps[1+i].OK() {
			return false
		}
	}
	return true
}

// lostAsExpected reports whether the lost updates are exactly the ones
// the run dropped on purpose (none, but in the control scenario).
func (r *Result) lostAsExpected() bool {
	if len(r.Lost) != len(r.ExpectedLost) {
		return false
	}
	want := map[string]bool{}
	for _, id := range r.ExpectedLost {
		want[id] = true
	}
	for _, f := range r.Lost {
		if !want[f.Alloc] {
			return false
		}
	}
	return true
}
