package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

// clientPackages is the part of upstream's test suite the fork runs.
const clientPackages = "./client/..."

// raceBaselineFile lists the tests that fail under -race on unpatched
// upstream, in the packages the series touches.
func (e *env) raceBaselineFile(p *pin.Pin) string {
	return filepath.Join(e.baseline, "client-race-"+p.Version()+".tsv")
}

// prepareSuite downloads the test modules of dir and builds its nomad onto
// the suite's PATH.
func prepareSuite(ctx context.Context, e *env, dir, binDir, label string, verbose bool) (*suite.Suite, error) {
	s := &suite.Suite{Dir: dir, BinDir: binDir, Log: e.stdout, Verbose: verbose}
	if err := progress.Step(e.stdout, "downloading test modules (before the network is cut)", func() error {
		return s.Download(ctx)
	}); err != nil {
		return nil, err
	}
	stamp, err := build.StampOf(ctx, &git.Repo{Dir: dir}, label)
	if err != nil {
		return nil, err
	}
	err = progress.Step(e.stdout, "building the tree's nomad for helper/subproc", func() error {
		return build.Nomad(ctx, dir, filepath.Join(binDir, "nomad"), stamp)
	})
	return s, err
}

// racePackages returns the import paths of the packages the series in the
// work tree touches, as `go list` in dir names them.
func racePackages(ctx context.Context, t *worktree.Tree, s *suite.Suite) ([]string, error) {
	base, err := t.Base(ctx)
	if err != nil {
		return nil, err
	}
	touched, err := worktree.ChangedPackages(ctx, t.Repo, base, "HEAD")
	if err != nil || len(touched) == 0 {
		return nil, err
	}
	var existing []string
	for _, p := range touched {
		if _, err := os.Stat(filepath.Join(s.Dir, p)); err == nil {
			existing = append(existing, p)
		}
	}
	if len(existing) == 0 {
		return nil, nil
	}
	return s.List(ctx, existing...)
}

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=false] [-sim=false]")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	race := fs.Bool("race", true, "also run the packages the series touches with -race, against the race baseline")
	retry := fs.Bool("retry", true, "run each failed test once more and report those that pass as flaky")
	sim := fs.Bool("sim", true, "also run the tests of the sim/ module, if it exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	known, err := gotest.ReadBaseline(e.baselineFile(p))
	if err != nil {
		return err
	}
	binDir := filepath.Join(e.out, "test", "bin")
	s, err := prepareSuite(ctx, e, t.Dir, binDir, "test", *verbose)
	if err != nil {
		return err
	}
	var results []namedReport
	var baselines []*gotest.Baseline

	pkgs, err := s.List(ctx, clientPackages)
	if err != nil {
		return err
	}
	// Every package runs without -race against the baseline, in the same
	// groups as the baseline ran them; the packages the series touches run
	// once more under -race against the race baseline.
	var racePkgs []string
	if *race {
		if racePkgs, err = racePackages(ctx, t, s); err != nil {
			return err
		}
	}
	rep := gotest.NewReport()
	for _, group := range [][]string{subtract(pkgs, racePkgs), racePkgs} {
		if len(group) == 0 {
			continue
		}
		if err := progress.Step(e.stdout, fmt.Sprintf("go test of %d packages of %s (sandboxed, skipping %d baseline failures)", len(group), clientPackages, len(known.Tests)), func() error {
			return s.RunWithBaseline(ctx, group, nil, known, rep)
		}); err != nil {
			return err
		}
	}
	results = append(results, namedReport{"go test " + clientPackages, s, nil, rep, true})
	baselines = append(baselines, known)

	if len(racePkgs) > 0 {
		raceKnown, err := gotest.ReadBaseline(e.raceBaselineFile(p))
		if err != nil {
			return err
		}
		if missing := raceKnown.Missing(racePkgs); len(missing) > 0 {
			return fmt.Errorf("the series touches %s, which the race baseline %s does not cover; run `nomadfork baseline -race-only` to refresh it",
				strings.Join(missing, ", "), e.raceBaselineFile(p))
		}
		raceRep := gotest.NewReport()
		flags := []string{"-race"}
		if err := progress.Step(e.stdout, fmt.Sprintf("go test -race: the %d packages the series touches (skipping %d race-baseline failures)", len(racePkgs), len(raceKnown.Tests)), func() error {
			return s.RunWithBaseline(ctx, racePkgs, flags, raceKnown, raceRep)
		}); err != nil {
			return err
		}
		results = append(results, namedReport{"go test -race (touched packages)", s, flags, raceRep, true})
		baselines = append(baselines, raceKnown)
	}
	if _, err := os.Stat(filepath.Join(e.sim, "go.mod")); err == nil && *sim {
		ss := &suite.Suite{Dir: e.sim, BinDir: binDir, Log: e.stdout, Verbose: *verbose}
		if err := ss.Download(ctx); err != nil {
			return err
		}
		simRep := gotest.NewReport()
		flags := []string{"-race"}
		if err := progress.Step(e.stdout, "go test -race ./... in sim/ (external AllocRunner consumer)", func() error {
			return ss.Run(ctx, suite.Invocation{Packages: []string{"./..."}, Flags: flags}, simRep)
		}); err != nil {
			return err
		}
		results = append(results, namedReport{"go test -race sim/...", ss, flags, simRep, false})
	}
	upstream := &upstreamRerun{e: e, t: t, verbose: *verbose}
	defer upstream.cleanup()
	return summarize(ctx, e, results, baselines, *retry, upstream)
}

// upstreamRerun runs tests that failed on the fork, and again on retry, on
// unpatched upstream, to tell a regression from a failure upstream has too
// (v1.5.3's tests, under -race above all, fail some runs and not others, so
// no baseline lists every such test). It prepares the upstream tree lazily.
type upstreamRerun struct {
	e       *env
	t       *worktree.Tree
	verbose bool
	suite   *suite.Suite
	dir     string
}

// failing returns the tests among failed that also fail on upstream.
func (u *upstreamRerun) failing(ctx context.Context, failed []gotest.Result, flags []string) (map[[2]string]bool, error) {
	if u.suite == nil {
		base, err := u.t.Base(ctx)
		if err != nil {
			return nil, err
		}
		u.dir = filepath.Join(u.e.out, "test", "upstream")
		if err := os.RemoveAll(u.dir); err != nil {
			return nil, err
		}
		if _, err := u.t.Repo.Run(ctx, "worktree", "prune"); err != nil {
			return nil, err
		}
		if _, err := u.t.Repo.Run(ctx, "worktree", "add", "--quiet", "--detach", "--force", u.dir, base); err != nil {
			return nil, err
		}
		s, err := prepareSuite(ctx, u.e, u.dir, filepath.Join(u.e.out, "test", "upstream-bin"), "upstream", u.verbose)
		if err != nil {
			return nil, err
		}
		u.suite = s
	}
	// A race failure shows in some runs only: a test counts as failing on
	// upstream if any of a few runs on its own fails.
	same := map[[2]string]bool{}
	pending := failed
	for run := 0; run < upstreamRuns && len(pending) > 0; run++ {
		outcomes, err := u.suite.Outcomes(ctx, pending, flags)
		if err != nil {
			return nil, err
		}
		var next []gotest.Result
		for _, f := range pending {
			key := [2]string{f.Package, f.Test}
			switch outcomes[key] {
			case "fail":
				same[key] = true
			case "pass":
				next = append(next, f)
			}
		}
		pending = next
	}
	return same, nil
}

// upstreamRuns is how often a test that fails on the fork runs on upstream.
const upstreamRuns = 3

func (u *upstreamRerun) cleanup() {
	if u.dir != "" {
		_, _ = u.t.Repo.Run(context.Background(), "worktree", "remove", "--force", u.dir)
	}
}

// subtract returns the elements of a not in b, in order.
func subtract(a, b []string) []string {
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

type namedReport struct {
	name  string
	suite *suite.Suite
	flags []string
	rep   *gotest.Report
	// upstream is set for suites of upstream's tests, whose failures can be
	// checked against unpatched upstream.
	upstream bool
}

// maxRetries bounds the retries: more failures than this are not flakes.
const maxRetries = 20

// summarize prints packages, passed, failed and skipped tests of every
// report and returns an error if anything failed (after one retry).
func summarize(ctx context.Context, e *env, results []namedReport, baselines []*gotest.Baseline, retry bool, upstream *upstreamRerun) error {
	w := e.stdout
	failures := 0
	fmt.Fprintln(w, "\n==> summary")
	for _, r := range results {
		passed, failed, skipped := r.rep.Select("pass"), r.rep.Select("fail"), r.rep.Select("skip")
		fmt.Fprintf(w, "%s: %d packages, %d passed, %d failed, %d skipped\n", r.name, len(r.rep.Packages), len(passed), len(failed), len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(w, "    skip %s: %s\n", s.Name(), gotest.SkipReason(s))
		}
		still := failed
		if retry && len(failed) > 0 && len(failed) <= maxRetries {
			var flaky []gotest.Result
			var err error
			flaky, still, err = r.suite.Retry(ctx, failed, r.flags)
			if err != nil {
				return err
			}
			for _, f := range flaky {
				fmt.Fprintf(w, "    FLAKY %s: failed, then passed on retry\n", f.Name())
			}
		}
		if retry && len(still) > 0 && len(still) <= maxRetries && r.upstream {
			same, err := upstream.failing(ctx, still, r.flags)
			if err != nil {
				return err
			}
			var regressions []gotest.Result
			for _, f := range still {
				if same[[2]string{f.Package, f.Test}] {
					fmt.Fprintf(w, "    UPSTREAM %s: fails on unpatched upstream too, run alone; not a regression\n", f.Name())
				} else {
					regressions = append(regressions, f)
				}
			}
			still = regressions
		}
		for _, f := range still {
			failures++
			fmt.Fprintf(w, "    FAIL %s (regression: passes on upstream, fails on the fork)\n", f.Name())
			printTail(w, f.Output)
		}
		for _, f := range r.rep.FailedPackages() {
			failures++
			fmt.Fprintf(w, "    FAIL package %s\n", f.Package)
			printTail(w, f.Output)
		}
	}
	for _, b := range baselines {
		fmt.Fprintf(w, "baseline (%s): %d tests skipped as failures of unpatched upstream:\n", firstLine(b.Header), len(b.Tests))
		for _, k := range b.Tests {
			fmt.Fprintf(w, "    %s.%s: %s\n", k.Package, k.Test, k.Reason)
		}
	}
	if failures > 0 {
		return fmt.Errorf("%d failure(s)", failures)
	}
	fmt.Fprintln(w, "test: ok")
	return nil
}

func firstLine(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

func printTail(w interface{ Write([]byte) (int, error) }, lines []string) {
	const n = 30
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for _, line := range lines {
		fmt.Fprintf(w, "        %s\n", line)
	}
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v] [-race-only | -plain-only | -revdeps] [-runs n] [-keep]")
	verbose := fs.Bool("v", false, "print every test's output")
	raceOnly := fs.Bool("race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	plainOnly := fs.Bool("plain-only", false, "only refresh the baseline without -race")
	revdepsOnly := fs.Bool("revdeps", false, "only make the reverse-dependency baseline (the packages outside ./client/... whose tests import what the series changes), for `nomadfork revdeps -run`")
	runs := fs.Int("runs", 2, "run each suite `n` times and record every test that failed in any run")
	keep := fs.Bool("keep", false, "keep the entries the baseline files already have (add to them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	p, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return err
	}
	scratch := filepath.Join(e.out, "baseline", "nomad")
	if err := os.RemoveAll(scratch); err != nil {
		return err
	}
	if _, err := t.Repo.Run(ctx, "worktree", "prune"); err != nil {
		return err
	}
	if _, err := t.Repo.Run(ctx, "worktree", "add", "--quiet", "--detach", "--force", scratch, base); err != nil {
		return err
	}
	defer t.Repo.Run(context.Background(), "worktree", "remove", "--force", scratch)
	s, err := prepareSuite(ctx, e, scratch, filepath.Join(e.out, "baseline", "bin"), "baseline", *verbose)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.baseline, 0o755); err != nil {
		return err
	}
	if *revdepsOnly {
		return revdepsBaseline(ctx, e, t, s, p, *runs, *keep)
	}
	var racePkgs []string
	if t.Repo.IsRepo(ctx) {
		if racePkgs, err = racePackages(ctx, t, s); err != nil {
			return err
		}
	}
	if !*raceOnly {
		pkgs, err := s.List(ctx, clientPackages)
		if err != nil {
			return err
		}
		// Packages share the sandbox of their go test invocation (its
		// empty /sys/fs/cgroup, for one), so the plain run groups them as
		// `nomadfork test` does: untouched packages together, the touched
		// ones apart.
		groups := [][]string{subtract(pkgs, racePkgs)}
		if len(racePkgs) > 0 {
			groups = append(groups, racePkgs)
		}
		what := fmt.Sprintf("Top-level tests of %s that fail on unpatched %s in the nomadfork sandbox", clientPackages, p.Module)
		if err := baselineRun(ctx, e, s, groups, nil, what, nil, e.baselineFile(p), *runs, *keep); err != nil {
			return err
		}
	}
	if *plainOnly {
		return nil
	}
	if len(racePkgs) == 0 {
		if *raceOnly {
			return errors.New("the series touches no package that exists upstream; there is nothing to race-test")
		}
		return nil
	}
	what := fmt.Sprintf("Top-level tests that fail under -race on unpatched %s in the nomadfork sandbox, in the packages the series touches", p.Module)
	return baselineRun(ctx, e, s, [][]string{racePkgs}, []string{"-race"}, what, racePkgs, e.raceBaselineFile(p), *runs, *keep)
}

// baselineRun runs the package groups (one go test invocation, so one
// sandbox, each) with flags on upstream runs times and writes the union of
// the failures: upstream's tests, under -race above all, fail some runs and
// not others, and a test that failed once on upstream is no evidence
// against the fork. With keep, the file's earlier entries stay.
func baselineRun(ctx context.Context, e *env, s *suite.Suite, groups [][]string, flags []string, what string, covered []string, file string, runs int, keep bool) error {
	failed := map[[2]string]gotest.Known{}
	if keep {
		if old, err := gotest.ReadBaseline(file); err == nil {
			for _, k := range old.Tests {
				failed[[2]string{k.Package, k.Test}] = k
			}
		}
	}
	var passed, skipped int
	for run := 1; run <= runs; run++ {
		// Once failures are known, later runs skip them exactly as `nomadfork
		// test` will: skipping a test can change what the tests after it
		// find (upstream's tests share process state), and a failure that
		// only shows then must be in the baseline too.
		known := &gotest.Baseline{}
		for _, k := range failed {
			known.Tests = append(known.Tests, k)
		}
		rep := gotest.NewReport()
		for _, pkgs := range groups {
			step := fmt.Sprintf("go test %s of %d packages of unpatched upstream (sandboxed, run %d of %d, skipping %d known failures)", strings.Join(flags, " "), len(pkgs), run, runs, len(known.Tests))
			if err := progress.Step(e.stdout, step, func() error {
				return s.RunWithBaseline(ctx, pkgs, flags, known, rep)
			}); err != nil {
				return err
			}
		}
		if pf := rep.FailedPackages(); len(pf) > 0 {
			return fmt.Errorf("package %s fails on upstream without a failing test (build failure or panic); the baseline cannot skip it:\n%s",
				pf[0].Package, strings.Join(pf[0].Output[max(0, len(pf[0].Output)-30):], "\n"))
		}
		for _, f := range rep.Select("fail") {
			key := [2]string{f.Package, f.Test}
			if _, ok := failed[key]; !ok {
				failed[key] = gotest.Known{Package: f.Package, Test: f.Test, Reason: gotest.Reason(f)}
			}
		}
		passed, skipped = len(rep.Select("pass")), len(rep.Select("skip"))
	}
	b := &gotest.Baseline{
		Header: []string{
			what,
			"for environmental reasons or upstream bugs; `nomadfork test` skips exactly these (go test -skip, per package).",
			fmt.Sprintf("Made by `nomadfork baseline` on %s with %s on %s/%s, %d CPUs, the union of %d run(s)%s; the last run: %d passed, %d skipped.",
				time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
				runs, map[bool]string{true: " and the entries before", false: ""}[keep], passed, skipped),
			"Format: package<TAB>test<TAB>reason.",
		},
		Packages: covered,
	}
	for _, k := range failed {
		b.Tests = append(b.Tests, k)
	}
	if err := b.Write(file); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d tests failing on upstream\n", file, len(b.Tests))
	return nil
}
