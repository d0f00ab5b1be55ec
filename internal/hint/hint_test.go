package hint

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

// line renders steps with a line, to tell rendered steps from plain ones.
type line struct{}

func (line) Command(s Step) string {
	return "[" + strings.Join(append([]string{s.Verb}, s.Args...), " ") + " on " + s.Line + "]"
}
func (line) WorkTree() string { return "lines/v1/nomad/" }

func TestMessageRendersItsValues(t *testing.T) {
	m := Sprintf("resolve in %s, then run %s or %s (%d)", WorkTree, Run("apply", "-continue"), Run("check").OnLine("v2"), 3)
	if got, want := m.String(), "resolve in the work tree, then run `apply -continue` or `check` (3)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := m.Render(line{}), "resolve in lines/v1/nomad/, then run [apply -continue on ] or [check on v2] (3)"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got, want := m.Steps(), []Step{Run("apply", "-continue"), {Verb: "check", Line: "v2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Steps = %v, want %v", got, want)
	}
}

// An error carrying advice renders it through any wrapping, and still
// wraps what it wraps.
func TestRenderThroughWrapping(t *testing.T) {
	inner := Errorf("reading it: %w; run %s", fs.ErrNotExist, Run("baseline"))
	err := fmt.Errorf("test: %w", Errorf("on %s: %w", WorkTree, inner))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Error("the wrapped error is lost")
	}
	if got, want := Render(err, line{}), "test: on lines/v1/nomad/: reading it: file does not exist; run [baseline on ]"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	if got, want := err.Error(), "test: on the work tree: reading it: file does not exist; run `baseline`"; got != want {
		t.Errorf("Error = %q, want %q", got, want)
	}
	if got := Steps(err); !reflect.DeepEqual(got, []Step{Run("baseline")}) {
		t.Errorf("Steps = %v", got)
	}
	plain := errors.New("no advice")
	if got := Render(fmt.Errorf("x: %w", plain), line{}); got != "x: no advice" {
		t.Errorf("Render of a plain error = %q", got)
	}
}
