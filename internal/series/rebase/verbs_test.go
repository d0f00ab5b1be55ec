package rebase

import (
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli/clitest"
)

// The verbs' flags are checked here: a combination that means nothing is
// a usage error that says what is wrong; a meaningful one passes.
func TestOptionsCheck(t *testing.T) {
	clitest.CheckUsage(t, func() *Options { return new(Options) }, map[string]string{
		"":                              "exactly one of",
		"-continue -abort":              "exactly one of",
		"-onto v1.2.0 -continue":        "exactly one of",
		"-new-line -continue":           "-new-line goes with -onto",
		"-onto 1.2":                     "not a version",
		"-onto v1.2.0":                  "",
		"-onto v1.2.0 -new-line":        "",
		"-abort":                        "",
		"-onto v1.2.0 -nested a/b@v0.1": "",
	})
}

// drop takes its patch before or after the flags, one only, and checks
// the URL and -verify's company.
func TestDropOptionsParse(t *testing.T) {
	for args, want := range map[string]string{
		"0002 -applied-upstream v1.1.0":      "",
		"-applied-upstream v1.1.0 0002":      "",
		"-applied-upstream v1.1.0":           "give one patch",
		"0001 0002 -applied-upstream v1.1.0": "not 2 (0001 0002)",
		"0001 -applied-upstream v1.1.0 0002": "not 2 (0001 0002)",
		// The usage line's order, -line first (a helper's trial).
		"-line v1.5.3 0002 -applied-upstream v1.1.0":                 "",
		"-applied-upstream v1.1.0 0002 -pr https://example.com/pr/1": "",
		"0002 -applied-upstream v1.1.0 -pr http://example.com/pr/1":  "not an https URL",
		"0002 -verify": "-verify takes -pr",
		"0002 -verify -pr https://example.com/pr/1 -applied-upstream v1": "-verify takes -pr",
		"0002 -verify -pr https://example.com/pr/1":                      "",
	} {
		var o DropOptions
		fs := flag.NewFlagSet("drop", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("line", "", "as newFlags declares it")
		o.Flags(fs)
		err := o.Parse(fs, strings.Fields(args))
		switch {
		case want == "" && (err != nil || o.Patch != "0002"):
			t.Errorf("%q: %v, patch %q", args, err, o.Patch)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want an error saying %q", args, err, want)
		}
	}
	if err := (DropOptions{Applied: "1.1"}).CheckVersion(); err == nil {
		t.Error("-applied-upstream 1.1 passes")
	}
	if err := (DropOptions{}).CheckVersion(); err == nil || !strings.Contains(err.Error(), "give -applied-upstream <version>") {
		t.Errorf("no -applied-upstream: %v, want an error naming the flag to give", err)
	}
}
