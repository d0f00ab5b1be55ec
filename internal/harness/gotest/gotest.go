// Package gotest reads the event stream of `go test -json` into per-test
// results and a summary.
package gotest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Event is one line of `go test -json` output (see `go doc test2json`).
type Event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
	// ImportPath names the package a build-output event is about, and
	// FailedBuild the one whose build failed a package's tests.
	ImportPath  string
	FailedBuild string
}

// Result is the outcome of one top-level test or of a package.
type Result struct {
	Package string
	// Test is empty for a package-level result.
	Test string
	// Action is pass, fail or skip.
	Action string
	// Output is everything the test (and its subtests) printed; for a
	// package whose tests did not build, the build's output first.
	Output []string
	// BuildFailed marks a package whose tests did not build.
	BuildFailed bool
}

// Name returns package.Test, or the package alone.
func (r Result) Name() string {
	if r.Test == "" {
		return r.Package
	}
	return r.Package + "." + r.Test
}

// Report collects the results of one or more `go test -json` runs.
type Report struct {
	// Tests holds top-level tests, keyed by package and name.
	Tests map[[2]string]*Result
	// Packages holds package outcomes.
	Packages map[string]*Result
	// build holds the build output per import path.
	build map[string][]string
}

// NewReport returns an empty report.
func NewReport() *Report {
	return &Report{Tests: map[[2]string]*Result{}, Packages: map[string]*Result{}, build: map[string][]string{}}
}

// Read adds the events read from r, copying the human-readable output to
// echo (may be nil).
func (rep *Report) Read(r io.Reader, echo io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e Event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: the go command's own output, such as a build error.
			if echo != nil {
				fmt.Fprintf(echo, "%s\n", line)
			}
			continue
		}
		rep.add(e, echo)
	}
	return sc.Err()
}

func (rep *Report) add(e Event, echo io.Writer) {
	switch e.Action {
	case "build-output":
		if rep.build == nil {
			rep.build = map[string][]string{}
		}
		rep.build[e.ImportPath] = append(rep.build[e.ImportPath], strings.TrimRight(e.Output, "\n"))
		if echo != nil {
			fmt.Fprint(echo, e.Output)
		}
		return
	case "build-fail":
		return
	}
	top, _, _ := strings.Cut(e.Test, "/")
	var r *Result
	if e.Test == "" {
		r = rep.Packages[e.Package]
		if r == nil {
			r = &Result{Package: e.Package}
			rep.Packages[e.Package] = r
		}
	} else {
		key := [2]string{e.Package, top}
		r = rep.Tests[key]
		if r == nil {
			r = &Result{Package: e.Package, Test: top}
			rep.Tests[key] = r
		}
	}
	switch e.Action {
	case "output":
		r.Output = append(r.Output, strings.TrimRight(e.Output, "\n"))
	case "pass", "fail", "skip":
		if e.Test == top { // a subtest's outcome does not decide its parent's
			r.Action = e.Action
		}
		if e.FailedBuild != "" {
			r.BuildFailed = true
			r.Output = append(append([]string(nil), rep.build[e.FailedBuild]...), r.Output...)
		}
		if echo != nil && e.Test == "" {
			fmt.Fprintf(echo, "%-4s %s (%.1fs)\n", e.Action, e.Package, e.Elapsed)
		}
		if echo != nil && e.Test == top && e.Action == "fail" {
			fmt.Fprintf(echo, "--- FAIL: %s %s\n", e.Package, e.Test)
		}
	}
}

// Select returns the tests (and packages, if packages is set) whose action
// is action, sorted by name.
func (rep *Report) Select(action string) []Result {
	var out []Result
	for _, r := range rep.Tests {
		if r.Action == action {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// FailedPackages returns packages that failed without a failing test, such
// as build failures, panics in init or timeouts outside a test.
func (rep *Report) FailedPackages() []Result {
	failing := map[string]bool{}
	for _, r := range rep.Tests {
		if r.Action == "fail" {
			failing[r.Package] = true
		}
	}
	var out []Result
	for _, r := range rep.Packages {
		if r.Action == "fail" && !failing[r.Package] {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out
}

// SkipReason returns the message a skipped test gave, if any.
func SkipReason(r Result) string {
	for _, line := range r.Output {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "===") || s == "" {
			continue
		}
		if _, msg, ok := strings.Cut(s, ".go:"); ok {
			if _, m, ok := strings.Cut(msg, ": "); ok {
				return strings.TrimSpace(m)
			}
		}
		return s
	}
	return "no reason given"
}
