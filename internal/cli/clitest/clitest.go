// Package clitest tests the options of a verb: their flags parsed from a
// command line, then their Check.
package clitest

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
)

// Options are a verb's options: they declare their flags and check what
// the command line gave them.
type Options interface {
	Flags(fs *flag.FlagSet)
	Check() error
}

// CheckUsage parses each command line of cases (its words separated by
// spaces) into new options and checks them: where the case's want is
// empty Check must pass, else it must return a cli.UsageError whose
// message contains want.
func CheckUsage[O Options](t *testing.T, newOptions func() O, cases map[string]string) {
	t.Helper()
	for args, want := range cases {
		o := newOptions()
		fs := flag.NewFlagSet("verb", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o.Flags(fs)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Errorf("%q: %v", args, err)
			continue
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
