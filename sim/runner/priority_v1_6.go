//go:build nomad_v1_6

// Nomad v1.6 decides the priority of an allocation update in the alloc
// runner: its AllocRunner interface has AcknowledgeState and
// GetUpdatePriority, whose types v1.5 does not have. nomadfork builds sim/
// with -tags nomad_v1_6 for lines on v1.6.0 and later.

package runner

import (
	arstate "github.com/hashicorp/nomad/client/allocrunner/state"
	cstructs "github.com/hashicorp/nomad/client/structs"
	"github.com/hashicorp/nomad/nomad/structs"
)

// AcknowledgeState records the allocation state the servers acknowledged,
// in the client's state database as the real alloc runner does, so a
// restarted client knows it too.
func (ar *AllocRunner) AcknowledgeState(s *arstate.State) {
	if ar.IsDestroyed() {
		return
	}
	if err := ar.stateDB.PutAcknowledgedState(ar.allocID, s); err != nil {
		ar.logger.Warn("failed to store the acknowledged allocation state", "error", err)
	}
}

// GetUpdatePriority compares an update with the state the servers last
// acknowledged: a changed client status is urgent, any other change
// typical, no change none. Before any acknowledgment only a failure is
// urgent.
func (ar *AllocRunner) GetUpdatePriority(alloc *structs.Allocation) cstructs.AllocUpdatePriority {
	last, err := ar.stateDB.GetAcknowledgedState(ar.allocID)
	if err != nil {
		ar.logger.Warn("failed to read the acknowledged allocation state", "error", err)
		last = nil
	}
	if last == nil {
		if alloc.ClientStatus == structs.AllocClientStatusFailed {
			return cstructs.AllocUpdatePriorityUrgent
		}
		return cstructs.AllocUpdatePriorityTypical
	}
	switch {
	case last.ClientStatus != alloc.ClientStatus:
		return cstructs.AllocUpdatePriorityUrgent
	case last.ClientDescription != alloc.ClientDescription,
		!last.DeploymentStatus.Equal(alloc.DeploymentStatus),
		!last.NetworkStatus.Equal(alloc.NetworkStatus),
		!sameTaskStates(last.TaskStates, alloc.TaskStates):
		return cstructs.AllocUpdatePriorityTypical
	}
	return cstructs.AllocUpdatePriorityNone
}

func sameTaskStates(a, b map[string]*structs.TaskState) bool {
	if len(a) != len(b) {
		return false
	}
	for name, ts := range a {
		other, ok := b[name]
		if !ok || !ts.Equal(other) {
			return false
		}
	}
	return true
}
