package experiment

import "github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"

// Client statuses of an allocation.
const (
	ClientPending  = "pending"
	ClientRunning  = "running"
	ClientComplete = "complete"
	ClientFailed   = "failed"
	ClientLost     = "lost"
	ClientUnknown  = "unknown"
)

// AllocTransitions returns how many ClientStatus transitions the server has
// seen an allocation make on the path pending → running → terminal: 0 while
// pending, 1 once running, and for a terminal allocation 1 plus 1 if any of
// its tasks had started (so it went through running). Counted at two phase
// edges, the difference is the transitions of the phase.
func AllocTransitions(a cluster.AllocStub) int {
	switch a.ClientStatus {
	case ClientPending, "":
		return 0
	case ClientRunning, ClientUnknown:
		return 1
	}
	n := 1
	for _, ts := range a.TaskStates {
		if ts != nil && !ts.StartedAt.IsZero() {
			n++
			break
		}
	}
	return n
}

// Transitions sums AllocTransitions over allocs.
func Transitions(allocs []cluster.AllocStub) int {
	n := 0
	for _, a := range allocs {
		n += AllocTransitions(a)
	}
	return n
}
