package check

import (
	"strings"
	"testing"
)

func TestVerbScope(t *testing.T) {
	for _, tc := range []struct {
		v    VerbOptions
		want Scope
	}{
		{VerbOptions{}, Full},
		{VerbOptions{NoBuild: true}, None},
		{VerbOptions{TipOnly: true}, Tip},
		{VerbOptions{PrefixesOnly: true}, Prefixes},
	} {
		if got := tc.v.Scope(); got != tc.want {
			t.Errorf("%+v.Scope() = %d, want %d", tc.v, got, tc.want)
		}
		if err := tc.v.Check(); err != nil {
			t.Errorf("%+v.Check(): %v", tc.v, err)
		}
	}
	if err := (VerbOptions{TipOnly: true, PrefixesOnly: true}).Check(); err == nil {
		t.Error("-tip-only with -prefixes-only: no error")
	}
	if err := (VerbOptions{Verbose: true}).Check(); err == nil || !strings.Contains(err.Error(), "-v goes with -tests") {
		t.Errorf("-v without -tests: %v, want a usage error", err)
	}
	if err := (VerbOptions{Verbose: true, Tests: true}).Check(); err != nil {
		t.Errorf("-v -tests: %v", err)
	}
}
