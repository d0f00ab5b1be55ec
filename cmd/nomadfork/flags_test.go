package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
)

// The verbs' flags, declared in their files, are checked here: a
// combination that means nothing is a usage error that says what is
// wrong; a meaningful one passes.

// checkUsage parses each command line of cases (its words separated by
// spaces) into new options, their flags declared by flags, and checks
// them: where the case's want is empty Check must pass, else it must
// return a cli.UsageError whose message contains want.
func checkUsage[O any, PO interface {
	*O
	Check() error
}](t *testing.T, flags func(*flag.FlagSet, *O), cases map[string]string) {
	t.Helper()
	for args, want := range cases {
		o := new(O)
		fs := flag.NewFlagSet("verb", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		flags(fs, o)
		if err := fs.Parse(strings.Fields(args)); err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		err := PO(o).Check()
		var usage cli.UsageError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", args, err)
		case want != "" && (!errors.As(err, &usage) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want a usage error saying %q", args, err, want)
		}
	}
}

func TestRebaseFlags(t *testing.T) {
	checkUsage(t, rebaseFlags, map[string]string{
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
func TestDropFlags(t *testing.T) {
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
		var o rebase.DropOptions
		fs := flag.NewFlagSet("drop", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("line", "", "as newFlags declares it")
		dropFlags(fs, &o)
		err := o.Parse(fs, strings.Fields(args))
		switch {
		case want == "" && (err != nil || o.Patch != "0002"):
			t.Errorf("%q: %v, patch %q", args, err, o.Patch)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want an error saying %q", args, err, want)
		}
	}
	if err := (rebase.DropOptions{Applied: "1.1"}).CheckVersion(); err == nil {
		t.Error("-applied-upstream 1.1 passes")
	}
	if err := (rebase.DropOptions{}).CheckVersion(); err == nil || !strings.Contains(err.Error(), "give -applied-upstream <version>") {
		t.Errorf("no -applied-upstream: %v, want an error naming the flag to give", err)
	}
}

// status's -markdown and -doc go with -all-lines, and one at a time: with
// both, -doc would be silently ignored.
func TestStatusFlags(t *testing.T) {
	checkUsage(t, statusFlags, map[string]string{
		"":                          "",
		"-against v1.5.6":           "",
		"-all-lines -markdown":      "",
		"-all-lines -doc":           "",
		"-markdown":                 "go with -all-lines",
		"-doc":                      "go with -all-lines",
		"-all-lines -markdown -doc": "exclude each other",
	})
}

// baseline refuses a command line that would empty the baseline files
// (-runs 0) or make none of them (two of -race-only, -plain-only,
// -revdeps); a meaningful one passes.
func TestBaselineFlags(t *testing.T) {
	checkUsage(t, baselineFlags, map[string]string{
		"":                       "",
		"-race-only -runs 1":     "",
		"-revdeps -keep":         "",
		"-runs 0":                "-runs must be at least 1",
		"-runs -2 -plain-only":   "-runs must be at least 1",
		"-race-only -plain-only": "exclude each other",
		"-plain-only -revdeps":   "exclude each other",
		"-race-only -revdeps -v": "exclude each other",
	})
}
