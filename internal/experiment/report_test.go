package experiment

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
)

type fakeResult struct{ Err string }

func (r *fakeResult) OK() bool { return r.Err == "" }

type fakeReport struct {
	Header
	Results []fakeResult `json:"results"`
}

func TestReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if _, err := ReadReport[fakeReport](path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing report: %v", err)
	}
	rep := fakeReport{Header: Header{Command: "nomadfork x", Cores: 2}, Results: []fakeResult{{}, {Err: "x"}, {}, {Err: "y"}}}
	if err := atomicfile.WriteJSON(path, rep); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := Redraw(func(w io.Writer, r *fakeReport) error {
		_, err := io.WriteString(w, r.Command)
		return err
	})(&out, path)
	if err != nil || out.String() != "nomadfork x" {
		t.Fatalf("redrawn %q, %v", out.String(), err)
	}
	if n := NotOK(rep.Results); n != 2 {
		t.Fatalf("NotOK = %d, want 2", n)
	}
}
