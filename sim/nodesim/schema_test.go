package nodesim

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hashicorp/nomad/helper/pointer"
	"github.com/shoenig/test/must"
)

// TestState_Schema pins State's JSON to testdata/state.json, which the
// tool's scale package decodes in its own test: the simulator's view and
// the reader's agree field for field.
func TestState_Schema(t *testing.T) {
	st := State{
		Nodes: []NodeState{{
			Name: "nodesim-0", ID: "5f1c3a52-0d6e-4f3b-9c1e-6a2d8b7e4f10",
			Allocs: []AllocState{{
				ID: "0d900312-81b3-d73f-7f9d-95b89a8de892", ClientStatus: "running", Healthy: pointer.Of(true),
				Tasks: map[string]TaskState{"task": {State: "running", Events: 3}},
			}},
		}},
		HeapInuse: 32 << 20, Goroutines: 412,
		UpdateAllocRTT: &Histogram{BoundsMs: []float64{1, 1.1, 1.21}, Counts: []uint64{2, 5, 6}, Count: 7},
	}
	got, err := json.MarshalIndent(st, "", "  ")
	must.NoError(t, err)
	want, err := os.ReadFile("testdata/state.json")
	must.NoError(t, err)
	must.Eq(t, string(want), string(got)+"\n")
}
