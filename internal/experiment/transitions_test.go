package experiment

import (
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func TestTransitions(t *testing.T) {
	started := map[string]*cluster.TaskState{"task": {State: "dead", StartedAt: time.Unix(100, 0)}}
	never := map[string]*cluster.TaskState{"task": {State: "dead"}}
	allocs := []cluster.AllocStub{
		{ClientStatus: ClientPending},
		{ClientStatus: ClientRunning, TaskStates: started},
		{ClientStatus: ClientComplete, TaskStates: started}, // pending → running → complete
		{ClientStatus: ClientComplete, TaskStates: never},   // stopped before it started
		{ClientStatus: ClientFailed, TaskStates: nil},
		{ClientStatus: ClientLost, TaskStates: started},
	}
	want := []int{0, 1, 2, 1, 1, 2}
	sum := 0
	for i, a := range allocs {
		if got := AllocTransitions(a); got != want[i] {
			t.Errorf("alloc %d (%s): %d transitions, want %d", i, a.ClientStatus, got, want[i])
		}
		sum += want[i]
	}
	if got := Transitions(allocs); got != sum {
		t.Errorf("Transitions = %d, want %d", got, sum)
	}
}
