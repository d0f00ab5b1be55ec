package scale

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestNodesStateSchema decodes the simulator's own sample of its state
// (sim/nodesim/testdata/state.json, which sim's TestState_Schema pins to
// its State type): every field the simulator writes is one NodesState
// reads, and nothing is lost on the way.
func TestNodesStateSchema(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "sim", "nodesim", "testdata", "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(want))
	dec.DisallowUnknownFields()
	var st NodesState
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("decoding the simulator's state: %v", err)
	}
	got, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if string(got)+"\n" != string(want) {
		t.Errorf("the simulator's state read back as\n%s\nwant\n%s", got, want)
	}
}
