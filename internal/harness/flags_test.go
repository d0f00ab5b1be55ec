package harness

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// baseline refuses a command line that would empty the baseline files
// (-runs 0) or make none of them (two of -race-only, -plain-only,
// -revdeps); a meaningful one passes.
func TestBaselineOptionsCheck(t *testing.T) {
	for args, want := range map[string]string{
		"":                       "",
		"-race-only -runs 1":     "",
		"-revdeps -keep":         "",
		"-runs 0":                "-runs must be at least 1",
		"-runs -2 -plain-only":   "-runs must be at least 1",
		"-race-only -plain-only": "exclude each other",
		"-plain-only -revdeps":   "exclude each other",
		"-race-only -revdeps -v": "exclude each other",
	} {
		var o BaselineOptions
		fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Flags(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		err := o.Check()
		var usage cli.UsageError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", args, err)
		case want != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want a usage error saying %q", args, err, want)
		}
	}
}
