//go:build nomad_v1_6

package runner

import (
	"testing"

	"github.com/hashicorp/nomad/client/allocrunner/interfaces"
	"github.com/hashicorp/nomad/client/config"
	"github.com/hashicorp/nomad/client/state"
	cstructs "github.com/hashicorp/nomad/client/structs"
	"github.com/hashicorp/nomad/helper/testlog"
	"github.com/hashicorp/nomad/nomad/mock"
	"github.com/hashicorp/nomad/nomad/structs"
	"github.com/shoenig/test/must"
)

var _ interfaces.AllocRunner = (*AllocRunner)(nil)

func TestAllocRunner_GetUpdatePriority(t *testing.T) {
	clientConf, cleanup := config.TestClientConfig(t)
	t.Cleanup(cleanup)
	db := state.NewMemDB(testlog.HCLogger(t))

	alloc := mock.Alloc()
	ar, err := New(&config.AllocRunnerConfig{
		Logger:       testlog.HCLogger(t),
		ClientConfig: clientConf,
		Alloc:        alloc,
		StateDB:      db,
		StateUpdater: new(updates),
	})
	must.NoError(t, err)

	update := func(clientStatus string) *structs.Allocation {
		a := alloc.Copy()
		a.ClientStatus = clientStatus
		return a
	}

	// Nothing acknowledged yet: only a failure is urgent.
	must.Eq(t, cstructs.AllocUpdatePriorityTypical, ar.GetUpdatePriority(update(structs.AllocClientStatusRunning)))
	must.Eq(t, cstructs.AllocUpdatePriorityUrgent, ar.GetUpdatePriority(update(structs.AllocClientStatusFailed)))

	running := update(structs.AllocClientStatusRunning)
	acked := ar.AllocState()
	acked.ClientStatus = structs.AllocClientStatusRunning
	acked.TaskStates = running.TaskStates
	ar.AcknowledgeState(acked)

	// The acknowledged state is in the state database.
	stored, err := db.GetAcknowledgedState(alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, stored.ClientStatus)

	must.Eq(t, cstructs.AllocUpdatePriorityNone, ar.GetUpdatePriority(running))
	must.Eq(t, cstructs.AllocUpdatePriorityUrgent, ar.GetUpdatePriority(update(structs.AllocClientStatusComplete)))

	described := running.Copy()
	described.ClientDescription = "something changed"
	must.Eq(t, cstructs.AllocUpdatePriorityTypical, ar.GetUpdatePriority(described))

	restarted := running.Copy()
	restarted.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateRunning, Restarts: 1}}
	must.Eq(t, cstructs.AllocUpdatePriorityTypical, ar.GetUpdatePriority(restarted))

	// A destroyed runner stores nothing more.
	ar.Destroy()
	completed := acked.Copy()
	completed.ClientStatus = structs.AllocClientStatusComplete
	ar.AcknowledgeState(completed)
	stored, err = db.GetAcknowledgedState(alloc.ID)
	must.NoError(t, err)
	must.Eq(t, structs.AllocClientStatusRunning, stored.ClientStatus)
}
