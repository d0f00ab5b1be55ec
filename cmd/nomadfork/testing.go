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

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/verdict"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// clientPackages is the part of upstream's test suite the fork runs.
const clientPackages = "./client/..."

func (e *env) raceBaselineFile(p *pin.Pin) string {
	return filepath.Join(e.baseline, "client-race-"+p.Version()+".tsv")
}

// prepareSuite downloads the test modules of dir and builds its nomad onto
// the suite's PATH.
func prepareSuite(ctx context.Context, e *env, dir, binDir, label string, verbose bool) (*suite.Suite, error) {
	s := &suite.Suite{Dir: dir, BinDir: binDir, Log: e.stdout, Verbose: verbose}
	if err := progress.Step(e.stdout, "downloading test modules (before the network is cut)", func() error { return s.Download(ctx) }); err != nil {
		return nil, err
	}
	stamp, err := build.StampOf(ctx, &git.Repo{Dir: dir}, label)
	if err != nil {
		return nil, err
	}
	return s, progress.Step(e.stdout, "building the tree's nomad for helper/subproc", func() error {
		return build.Nomad(ctx, dir, filepath.Join(binDir, "nomad"), stamp)
	})
}

// racePackages returns the import paths of the packages the series touches.
func racePackages(ctx context.Context, t *worktree.Tree, s *suite.Suite) ([]string, error) {
	base, err := t.Base(ctx)
	if err != nil || base == "" {
		return nil, err
	}
	touched, err := worktree.ChangedPackages(ctx, t.Repo, base, "HEAD")
	var existing []string
	for _, p := range touched {
		if _, err := os.Stat(filepath.Join(s.Dir, p)); err == nil {
			existing = append(existing, p)
		}
	}
	if err != nil || len(existing) == 0 {
		return nil, err
	}
	return s.List(ctx, existing...)
}

// suiteRun is one suite's go test run and how to judge it.
type suiteRun struct {
	name     string
	suite    *suite.Suite
	flags    []string
	rep      *gotest.Report
	upstream bool // upstream's tests: failures are tried on upstream too
}

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=false] [-sim=false]", helpTest)
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	race := fs.Bool("race", true, "also run the packages the series touches with -race, against the race baseline")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream")
	sim := fs.Bool("sim", true, "also run the tests of the sim/ module")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	if err := t.Require(ctx, worktree.Need{Verb: "test", Base: true}); err != nil {
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
	pkgs, err := s.List(ctx, clientPackages)
	if err != nil {
		return err
	}
	var racePkgs []string
	if *race {
		if racePkgs, err = racePackages(ctx, t, s); err != nil {
			return err
		}
	}
	// Every package runs without -race in the groups the baseline ran
	// them in; the packages the series touches run once more with -race.
	runs := []suiteRun{{name: "go test " + clientPackages, suite: s, rep: gotest.NewReport(), upstream: true}}
	baselines := []*gotest.Baseline{known}
	for _, group := range [][]string{verdict.Subtract(pkgs, racePkgs), racePkgs} {
		if len(group) > 0 {
			what := fmt.Sprintf("go test of %d packages of %s (sandboxed, skipping %d baseline failures)", len(group), clientPackages, len(known.Tests))
			if err := progress.Step(e.stdout, what, func() error { return s.RunWithBaseline(ctx, group, nil, known, runs[0].rep) }); err != nil {
				return err
			}
		}
	}
	if len(racePkgs) > 0 {
		raceKnown, err := gotest.ReadBaseline(e.raceBaselineFile(p))
		if err != nil {
			return err
		}
		if missing := raceKnown.Missing(racePkgs); len(missing) > 0 {
			return fmt.Errorf("the series touches %s, which the race baseline %s does not cover; run `nomadfork baseline -race-only` to refresh it",
				strings.Join(missing, ", "), e.raceBaselineFile(p))
		}
		r := suiteRun{name: "go test -race (touched packages)", suite: s, flags: []string{"-race"}, rep: gotest.NewReport(), upstream: true}
		what := fmt.Sprintf("go test -race: the %d packages the series touches (skipping %d race-baseline failures)", len(racePkgs), len(raceKnown.Tests))
		if err := progress.Step(e.stdout, what, func() error { return s.RunWithBaseline(ctx, racePkgs, r.flags, raceKnown, r.rep) }); err != nil {
			return err
		}
		runs, baselines = append(runs, r), append(baselines, raceKnown)
	}
	if _, err := os.Stat(filepath.Join(e.sim, "go.mod")); err == nil && *sim {
		ss := &suite.Suite{Dir: e.sim, BinDir: binDir, Log: e.stdout, Verbose: *verbose}
		r := suiteRun{name: "go test -race sim/...", suite: ss, flags: []string{"-race"}, rep: gotest.NewReport()}
		if err := progress.Step(e.stdout, "go test -race ./... in sim/ (external AllocRunner consumer)", func() error {
			if err := ss.Download(ctx); err != nil {
				return err
			}
			return ss.Run(ctx, suite.Invocation{Packages: []string{"./..."}, Flags: r.flags}, r.rep)
		}); err != nil {
			return err
		}
		runs = append(runs, r)
	}
	up := &upstreamTree{e: e, t: t, verbose: *verbose}
	defer up.cleanup()
	return summarize(ctx, e, runs, baselines, *retry, up)
}

// upstreamTree is unpatched upstream in a scratch tree, prepared the first
// time a failure on the fork needs checking there.
type upstreamTree struct {
	e       *env
	t       *worktree.Tree
	verbose bool
	suite   *suite.Suite
	cleanup func()
}

func (u *upstreamTree) outcomes(ctx context.Context, tests []gotest.Result, flags []string) (map[[2]string]string, error) {
	if u.suite == nil {
		base, err := u.t.Base(ctx)
		if err != nil {
			return nil, err
		}
		wt, cleanup, err := u.t.Repo.Scratch(ctx, filepath.Join(u.e.out, "test", "upstream"), base)
		if err != nil {
			return nil, err
		}
		u.cleanup = cleanup
		if u.suite, err = prepareSuite(ctx, u.e, wt.Dir, filepath.Join(u.e.out, "test", "upstream-bin"), "upstream", u.verbose); err != nil {
			return nil, err
		}
	}
	return u.suite.Outcomes(ctx, tests, flags)
}

// summarize prints every run's verdict and fails on any regression.
func summarize(ctx context.Context, e *env, runs []suiteRun, baselines []*gotest.Baseline, retry bool, up *upstreamTree) error {
	fmt.Fprintln(e.stdout, "\n==> summary")
	failures := 0
	for _, r := range runs {
		opts := verdict.Options{Flags: r.flags, MaxRetries: verdict.DefaultMaxRetries, UpstreamRuns: verdict.DefaultUpstreamRuns}
		if retry {
			opts.Fork = r.suite.Outcomes
			if r.upstream {
				opts.Upstream = up.outcomes
			}
		}
		v, err := verdict.Judge(ctx, r.rep, opts)
		if err != nil {
			return err
		}
		v.Print(e.stdout, r.name, len(r.rep.Packages))
		failures += v.Failures()
	}
	for _, b := range baselines {
		verdict.PrintBaseline(e.stdout, b)
	}
	if failures > 0 {
		return fmt.Errorf("%d failure(s)", failures)
	}
	fmt.Fprintln(e.stdout, "test: ok")
	return nil
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v] [-race-only | -plain-only] [-runs n] [-keep]", helpBaseline)
	verbose := fs.Bool("v", false, "print every test's output")
	raceOnly := fs.Bool("race-only", false, "only refresh the race baseline (the packages the series touches, with -race)")
	plainOnly := fs.Bool("plain-only", false, "only refresh the baseline without -race")
	runs := fs.Int("runs", 2, "run each suite `n` times and record every test that failed in any run")
	keep := fs.Bool("keep", false, "keep the entries the baseline files already have (add to them)")
	if err := parse(fs, args, 0); err != nil {
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
	wt, cleanup, err := t.Repo.Scratch(ctx, filepath.Join(e.out, "baseline", "nomad"), base)
	if err != nil {
		return err
	}
	defer cleanup()
	s, err := prepareSuite(ctx, e, wt.Dir, filepath.Join(e.out, "baseline", "bin"), "baseline", *verbose)
	if err != nil {
		return err
	}
	racePkgs, err := racePackages(ctx, t, s)
	if err != nil {
		return err
	}
	if !*raceOnly {
		pkgs, err := s.List(ctx, clientPackages)
		if err != nil {
			return err
		}
		// Packages share the sandbox of their go test invocation, so the
		// plain run groups them as `nomadfork test` does.
		groups := [][]string{verdict.Subtract(pkgs, racePkgs)}
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

// baselineRun runs the package groups on upstream runs times and writes
// the union of the failures (with keep, added to the file's entries).
func baselineRun(ctx context.Context, e *env, s *suite.Suite, groups [][]string, flags []string, what string, covered []string, file string, runs int, keep bool) error {
	var earlier *gotest.Baseline
	if keep {
		earlier, _ = gotest.ReadBaseline(file)
	}
	n := 0
	tests, passed, skipped, err := verdict.Collect(ctx, runs, earlier, func(ctx context.Context, known *gotest.Baseline, rep *gotest.Report) error {
		n++
		for _, pkgs := range groups {
			step := fmt.Sprintf("go test %s of %d packages of unpatched upstream (sandboxed, run %d of %d, skipping %d known failures)", strings.Join(flags, " "), len(pkgs), n, runs, len(known.Tests))
			if err := progress.Step(e.stdout, step, func() error { return s.RunWithBaseline(ctx, pkgs, flags, known, rep) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
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
		Tests:    tests,
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := b.Write(file); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d tests failing on upstream\n", file, len(b.Tests))
	return nil
}
