// Package verdict decides what a test run of the fork means: which
// failures are flaky (pass on retry), which are upstream's own (fail on
// unpatched upstream too) and which are regressions of the series; and it
// folds runs of unpatched upstream into a baseline.
package verdict

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
)

// Rerun runs each test on its own and returns its action (pass, fail,
// skip, or "" for a test the tree does not have), keyed by package and
// test.
type Rerun func(ctx context.Context, tests []gotest.Result, flags []string) (map[[2]string]string, error)

// Options control Judge.
type Options struct {
	// Flags are the go test flags the suite ran with, such as -race.
	Flags []string
	// Fork reruns a failed test on the fork; nil: no retries.
	Fork Rerun
	// Upstream reruns a test on unpatched upstream; nil for suites that
	// are not upstream's tests.
	Upstream Rerun
	// MaxRetries bounds the failures retried: more are not flakes.
	MaxRetries int
	// UpstreamRuns is how often a failure is tried on upstream: a race
	// shows in some runs only.
	UpstreamRuns int
	// UpstreamRaceRuns is how often a failure that reported a data race
	// on the fork is tried on upstream, if more than UpstreamRuns: such a
	// race can pass half of its runs (TestMonitor_Monitor_ACL's race in
	// the server's Node.Register does).
	UpstreamRaceRuns int
	// ForkRaceRuns is how often a failure that reported a data race is
	// retried on the fork before it goes to upstream (at least once).
	ForkRaceRuns int
}

// DefaultMaxRetries, DefaultUpstreamRuns, DefaultUpstreamRaceRuns and
// DefaultForkRaceRuns are the values nomadfork test uses.
const (
	DefaultMaxRetries       = 20
	DefaultUpstreamRuns     = 3
	DefaultUpstreamRaceRuns = 10
	DefaultForkRaceRuns     = 3
)

// Verdict is what one suite's results mean.
type Verdict struct {
	Passed, Skipped []gotest.Result
	// Flaky failed, then passed on retry.
	Flaky []gotest.Result
	// Upstream failed on retry and on unpatched upstream too.
	Upstream []gotest.Result
	// Regressions fail on the fork and pass on upstream.
	Regressions []gotest.Result
	// Packages failed without a failing test (build failure, panic).
	Packages []gotest.Result
	// Logs maps a failed test or package (Result.Name) to the file
	// WriteLogs wrote its full output to.
	Logs map[string]string
}

// Failures counts what makes the run fail.
func (v *Verdict) Failures() int { return len(v.Regressions) + len(v.Packages) }

func key(r gotest.Result) [2]string { return [2]string{r.Package, r.Test} }

// Judge classifies the results in rep.
func Judge(ctx context.Context, rep *gotest.Report, opts Options) (*Verdict, error) {
	v := &Verdict{Passed: rep.Select("pass"), Skipped: rep.Select("skip"), Packages: rep.FailedPackages()}
	still := rep.Select("fail")
	if opts.Fork != nil && len(still) > 0 && len(still) <= opts.MaxRetries {
		passed, err := passingOnFork(ctx, still, opts)
		if err != nil {
			return nil, err
		}
		var again []gotest.Result
		for _, f := range still {
			if passed[key(f)] {
				v.Flaky = append(v.Flaky, f)
			} else {
				again = append(again, f)
			}
		}
		still = again
		if opts.Upstream != nil && len(still) > 0 {
			same, err := failingUpstream(ctx, still, opts)
			if err != nil {
				return nil, err
			}
			again = nil
			for _, f := range still {
				if same[key(f)] {
					v.Upstream = append(v.Upstream, f)
				} else {
					again = append(again, f)
				}
			}
			still = again
		}
	}
	v.Regressions = still
	return v, nil
}

// passingOnFork returns the failures that pass on the fork when retried on
// their own: once, or up to opts.ForkRaceRuns times for a failure that
// reported a data race (upstream's races, which the fork's tests that start
// a server can hit too, fail a run in two or more).
func passingOnFork(ctx context.Context, failed []gotest.Result, opts Options) (map[[2]string]bool, error) {
	runs := func(f gotest.Result) int {
		if gotest.Raced(f) {
			return max(1, opts.ForkRaceRuns)
		}
		return 1
	}
	passed := map[[2]string]bool{}
	pending := failed
	for run := 0; len(pending) > 0; run++ {
		outcomes, err := opts.Fork(ctx, pending, opts.Flags)
		if err != nil {
			return nil, err
		}
		var next []gotest.Result
		for _, f := range pending {
			switch outcomes[key(f)] {
			case "pass":
				passed[key(f)] = true
			case "fail":
				if run+1 < runs(f) {
					next = append(next, f)
				}
			}
		}
		pending = next
	}
	return passed, nil
}

// failingUpstream returns the tests that fail on upstream in any of
// opts.UpstreamRuns runs on their own (opts.UpstreamRaceRuns for a failure
// that reported a data race); a test that passes keeps being tried, one
// that upstream does not have counts as passing nowhere.
func failingUpstream(ctx context.Context, failed []gotest.Result, opts Options) (map[[2]string]bool, error) {
	runs := func(f gotest.Result) int {
		if gotest.Raced(f) {
			return max(1, opts.UpstreamRuns, opts.UpstreamRaceRuns)
		}
		return max(1, opts.UpstreamRuns)
	}
	same := map[[2]string]bool{}
	pending := failed
	for run := 0; len(pending) > 0; run++ {
		outcomes, err := opts.Upstream(ctx, pending, opts.Flags)
		if err != nil {
			return nil, err
		}
		var next []gotest.Result
		for _, f := range pending {
			switch outcomes[key(f)] {
			case "fail":
				same[key(f)] = true
			case "pass":
				if run+1 < runs(f) {
					next = append(next, f)
				}
			}
		}
		pending = next
	}
	return same, nil
}

// Print writes the verdict of the suite name.
func (v *Verdict) Print(w io.Writer, name string, packages int) {
	fmt.Fprintf(w, "%s: %d packages, %d passed, %d failed, %d skipped\n", name, packages, len(v.Passed),
		len(v.Flaky)+len(v.Upstream)+len(v.Regressions), len(v.Skipped))
	for _, s := range v.Skipped {
		fmt.Fprintf(w, "    skip %s: %s\n", s.Name(), gotest.SkipReason(s))
	}
	for _, f := range v.Flaky {
		fmt.Fprintf(w, "    FLAKY %s: failed, then passed on retry\n", f.Name())
		v.printLog(w, f)
	}
	for _, f := range v.Upstream {
		fmt.Fprintf(w, "    UPSTREAM %s: fails on unpatched upstream too, run alone; not a regression\n", f.Name())
		v.printLog(w, f)
	}
	for _, f := range v.Regressions {
		fmt.Fprintf(w, "    FAIL %s (regression: passes on upstream, fails on the fork)\n", f.Name())
		printTail(w, f.Output)
		v.printLog(w, f)
	}
	for _, f := range v.Packages {
		fmt.Fprintf(w, "    FAIL package %s\n", f.Package)
		printTail(w, f.Output)
		v.printLog(w, f)
	}
}

func (v *Verdict) printLog(w io.Writer, r gotest.Result) {
	if file, ok := v.Logs[r.Name()]; ok {
		fmt.Fprintf(w, "        full output: %s\n", file)
	}
}

// WriteLogs writes the whole output of every failed test and package of
// the verdict (the first failing run's) to dir, a file each named
// <package>.<Test>.log (the package's slashes as _), after removing dir's
// logs of an earlier run; Print names the files.
func (v *Verdict) WriteLogs(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing earlier test logs: %w", err)
	}
	v.Logs = map[string]string{}
	for _, group := range [][]gotest.Result{v.Flaky, v.Upstream, v.Regressions, v.Packages} {
		for _, r := range group {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			file := filepath.Join(dir, strings.ReplaceAll(r.Name(), "/", "_")+".log")
			data := strings.Join(r.Output, "\n") + "\n"
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				return fmt.Errorf("writing the output of %s: %w", r.Name(), err)
			}
			v.Logs[r.Name()] = file
		}
	}
	return nil
}

// PrintBaseline lists the baseline's entries, which the run skipped.
func PrintBaseline(w io.Writer, b *gotest.Baseline) {
	header := ""
	if len(b.Header) > 0 {
		header = b.Header[0]
	}
	fmt.Fprintf(w, "baseline (%s): %d tests skipped as failures of unpatched upstream:\n", header, len(b.Tests))
	for _, k := range b.Tests {
		fmt.Fprintf(w, "    %s.%s: %s\n", k.Package, k.Test, k.Reason)
	}
}

func printTail(w io.Writer, lines []string) {
	const n = 30
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for _, line := range lines {
		fmt.Fprintf(w, "        %s\n", line)
	}
}

// Subtract returns the elements of a not in b, in order.
func Subtract(a, b []string) []string {
	drop := map[string]bool{}
	for _, x := range b {
		drop[x] = true
	}
	var out []string
	for _, x := range a {
		if !drop[x] {
			out = append(out, x)
		}
	}
	return out
}

// RunOnce runs the suite once on upstream, skipping the known failures,
// and adds to rep.
type RunOnce func(ctx context.Context, known *gotest.Baseline, rep *gotest.Report) error

// Collect runs upstream runs times and returns the union of the failures,
// starting from earlier (nil: none). Once failures are known, later runs
// skip them exactly as `nomadfork test` will: skipping a test can change
// what the tests after it find (upstream's tests share process state), and
// a failure that only shows then must be in the baseline too. It also
// returns the last run's pass and skip counts.
func Collect(ctx context.Context, runs int, earlier *gotest.Baseline, run RunOnce) (tests []gotest.Known, passed, skipped int, err error) {
	failed := map[[2]string]gotest.Known{}
	if earlier != nil {
		for _, k := range earlier.Tests {
			failed[[2]string{k.Package, k.Test}] = k
		}
	}
	for i := 0; i < runs; i++ {
		known := &gotest.Baseline{Tests: sortedKnown(failed)}
		rep := gotest.NewReport()
		if err := run(ctx, known, rep); err != nil {
			return nil, 0, 0, err
		}
		for _, pf := range rep.FailedPackages() {
			if !pf.BuildFailed {
				out := pf.Output
				return nil, 0, 0, fmt.Errorf("package %s fails on upstream without a failing test (a panic or a timeout); the baseline cannot skip it:\n%s",
					pf.Package, strings.Join(out[max(0, len(out)-30):], "\n"))
			}
			// Its tests do not build: later runs and the fork's leave
			// the package out.
			k := gotest.BuildFailure(pf)
			failed[key(gotest.Result{Package: k.Package, Test: k.Test})] = k
		}
		for _, f := range rep.Select("fail") {
			if _, ok := failed[key(f)]; !ok {
				failed[key(f)] = gotest.Known{Package: f.Package, Test: f.Test, Reason: gotest.Reason(f)}
			}
		}
		passed, skipped = len(rep.Select("pass")), len(rep.Select("skip"))
	}
	return sortedKnown(failed), passed, skipped, nil
}

func sortedKnown(m map[[2]string]gotest.Known) []gotest.Known {
	out := make([]gotest.Known, 0, len(m))
	for _, k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Test < out[j].Test
	})
	return out
}
