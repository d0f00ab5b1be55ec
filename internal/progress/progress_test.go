package progress

import (
	"errors"
	"strings"
	"testing"
)

func TestCurrentIsTheInnermostOrLastStep(t *testing.T) {
	var b strings.Builder
	var inner string
	err := Step(&b, "outer", func() error {
		end := Begin("inner")
		inner = Current()
		end()
		if got := Current(); got != "outer" {
			t.Errorf("after inner ended, Current = %q", got)
		}
		return errors.New("interrupted")
	})
	if err == nil || inner != "inner" {
		t.Fatalf("err = %v, inner = %q", err, inner)
	}
	// The step an interruption stopped stays reported.
	if got := Current(); got != "inner" {
		t.Errorf("after all ended, Current = %q, want the step begun last", got)
	}
	if !strings.Contains(b.String(), "==> outer\n") || !strings.Contains(b.String(), "outer: failed in") {
		t.Errorf("output:\n%s", b.String())
	}
}
