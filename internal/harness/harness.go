// Package harness runs upstream's client tests of the work tree in the
// sandbox, skipping the baselines' failures of unpatched upstream, and
// makes those baselines. The verdict on failures is package verdict's.
package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/simmod"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/verdict"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// ClientPackages is the part of upstream's test suite the fork runs.
const ClientPackages = "./client/..."

// Options describe a test or baseline run.
type Options struct {
	// Tree is the work tree; its series decides the packages run with
	// -race.
	Tree *worktree.Tree
	// Scratch is a directory for binaries and scratch trees.
	Scratch string
	// Plain and Race are the baseline files: all of ClientPackages
	// without -race, the touched packages with -race; Revdeps is the
	// reverse dependencies' (see Revdeps).
	Plain, Race, Revdeps string
	// Series is the patches directory; Module is upstream's module path.
	Series, Module string
	// Version is the line's upstream version (the sim module's build tags).
	Version string
	// Sim is the directory of the sim module; empty for none. SimMod is
	// where its go.mod for a line other than the one sim/go.mod names is
	// generated (see package simmod).
	Sim, SimMod string
	// Verbose copies every test's output to Log.
	Verbose bool
	Log     io.Writer
}

// Prepare downloads the test modules of dir and builds its nomad into
// binDir, which the suite puts first on PATH.
func Prepare(ctx context.Context, dir, binDir, label string, verbose bool, log io.Writer) (*suite.Suite, error) {
	s := &suite.Suite{Dir: dir, BinDir: binDir, Log: log, Verbose: verbose}
	if err := progress.Step(log, "downloading test modules (before the network is cut)", func() error { return s.Download(ctx) }); err != nil {
		return nil, err
	}
	stamp, err := build.StampOf(ctx, &git.Repo{Dir: dir}, label)
	if err != nil {
		return nil, err
	}
	return s, progress.Step(log, "building the tree's nomad for helper/subproc", func() error {
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
	name string
	// logs names the directory, in the scratch directory, of its failed
	// tests' full output.
	logs     string
	suite    *suite.Suite
	flags    []string
	rep      *gotest.Report
	upstream bool // upstream's tests: failures are tried on upstream too
}

// TestOptions select the suites Test runs.
type TestOptions struct {
	// Client runs ClientPackages; Race, with it, the packages the series
	// touches once more with -race.
	Client, Race bool
	// Sim runs the sim module's tests (if Options.Sim names one).
	Sim bool
	// Retry runs each failed test once more, then on unpatched upstream.
	Retry bool
	// Verbose prints every test's output (Options.Verbose).
	Verbose bool
}

// Test runs the suites t selects — ClientPackages of the work tree (with
// Race the packages the series touches once more with -race) and sim's
// tests built against the work tree — judges the failures and fails on any
// regression.
func Test(ctx context.Context, o Options, t TestOptions) error {
	var known *gotest.Baseline
	if t.Client {
		var err error
		if known, err = gotest.ReadBaseline(o.Plain); err != nil {
			return err
		}
	}
	binDir := filepath.Join(o.Scratch, "bin")
	s, err := Prepare(ctx, o.Tree.Dir, binDir, "test", o.Verbose, o.Log)
	if err != nil {
		return err
	}
	var runs []suiteRun
	var baselines []*gotest.Baseline
	if t.Client {
		if runs, baselines, err = clientRuns(ctx, o, s, known, t.Race); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(o.Sim, "go.mod")); t.Sim && o.Sim != "" && err == nil {
		r, err := simRun(ctx, o, binDir)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	up := &upstreamTree{o: o}
	defer up.close()
	return summarize(ctx, o.Log, "test", o.Scratch, runs, baselines, t.Retry, up)
}

// clientRuns runs ClientPackages and, with race, the packages the series
// touches with -race.
func clientRuns(ctx context.Context, o Options, s *suite.Suite, known *gotest.Baseline, race bool) ([]suiteRun, []*gotest.Baseline, error) {
	pkgs, err := s.List(ctx, ClientPackages)
	if err != nil {
		return nil, nil, err
	}
	var racePkgs []string
	var raceKnown *gotest.Baseline
	if race {
		if racePkgs, err = racePackages(ctx, o.Tree, s); err != nil {
			return nil, nil, err
		}
		if raceKnown, err = gotest.ReadBaseline(o.Race); err != nil {
			return nil, nil, err
		}
		// The security patches touch packages outside the client (the
		// server, the agent, drivers) whose suites run for tens of
		// minutes and which the race baseline does not cover: they are
		// left to make test-full (contract, revdeps), and named here.
		if missing := raceKnown.Missing(racePkgs); len(missing) > 0 {
			fmt.Fprintf(o.Log, "test: the series touches %s, which the race baseline %s does not cover: not run here (add them with %s; make test-full's contract and revdeps run their tests)\n",
				strings.Join(missing, ", "), o.Race, hint.Run("baseline", "-race-only"))
			racePkgs = verdict.Subtract(racePkgs, missing)
		}
	}
	// Every package runs without -race in the groups the baseline ran
	// them in; the packages the series touches run once more with -race.
	runs := []suiteRun{{name: "go test " + ClientPackages, logs: "client", suite: s, rep: gotest.NewReport(), upstream: true}}
	baselines := []*gotest.Baseline{known}
	for _, group := range [][]string{verdict.Subtract(pkgs, racePkgs), racePkgs} {
		if len(group) > 0 {
			what := fmt.Sprintf("go test of %d packages of %s (sandboxed, skipping %d baseline failures)", len(group), ClientPackages, len(known.Tests))
			if err := progress.Step(o.Log, what, func() error { return s.RunWithBaseline(ctx, group, nil, known, runs[0].rep) }); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(racePkgs) == 0 {
		return runs, baselines, nil
	}
	r := suiteRun{name: "go test -race (touched packages)", logs: "client-race", suite: s, flags: []string{"-race"}, rep: gotest.NewReport(), upstream: true}
	what := fmt.Sprintf("go test -race: the %d packages the series touches (skipping %d race-baseline failures)", len(racePkgs), len(raceKnown.Tests))
	if err := progress.Step(o.Log, what, func() error { return s.RunWithBaseline(ctx, racePkgs, r.flags, raceKnown, r.rep) }); err != nil {
		return nil, nil, err
	}
	return append(runs, r), append(baselines, raceKnown), nil
}

// simRun runs the sim module's tests with -race against the work tree
// (see package simmod), with the tree's nomad in binDir first on PATH.
func simRun(ctx context.Context, o Options, binDir string) (suiteRun, error) {
	m, err := simmod.For(ctx, o.Sim, o.Tree.Dir, o.Module, o.Version, o.SimMod, o.Log)
	if err != nil {
		return suiteRun{}, err
	}
	ss := &suite.Suite{Dir: o.Sim, BinDir: binDir, Log: o.Log, Verbose: o.Verbose, GoFlags: m.GoFlags()}
	r := suiteRun{name: "go test -race sim/...", logs: "sim", suite: ss, flags: []string{"-race"}, rep: gotest.NewReport()}
	against := "its go.mod"
	if m.ModFile != "" {
		against = m.ModFile
	}
	what := fmt.Sprintf("go test -race ./... in sim/ (external AllocRunner consumer) against %s, with %s", o.Tree.Dir, against)
	if len(m.Tags) > 0 {
		what += ", -tags " + strings.Join(m.Tags, ",")
	}
	err = progress.Step(o.Log, what, func() error {
		if err := ss.Download(ctx); err != nil {
			return err
		}
		return ss.Run(ctx, suite.Invocation{Packages: []string{"./..."}, Flags: r.flags}, r.rep)
	})
	return r, err
}

// upstreamTree is unpatched upstream in a scratch tree, prepared the first
// time a failure on the fork needs checking there.
type upstreamTree struct {
	o       Options
	suite   *suite.Suite
	cleanup func()
}

func (u *upstreamTree) outcomes(ctx context.Context, tests []gotest.Result, flags []string) (map[[2]string]string, error) {
	if u.suite == nil {
		base, err := u.o.Tree.Base(ctx)
		if err != nil {
			return nil, err
		}
		wt, cleanup, err := u.o.Tree.Repo.Scratch(ctx, filepath.Join(u.o.Scratch, "upstream"), base)
		if err != nil {
			return nil, err
		}
		u.cleanup = cleanup
		if u.suite, err = Prepare(ctx, wt.Dir, filepath.Join(u.o.Scratch, "upstream-bin"), "upstream", u.o.Verbose, u.o.Log); err != nil {
			return nil, err
		}
	}
	return u.suite.Outcomes(ctx, tests, flags)
}

func (u *upstreamTree) close() {
	if u.cleanup != nil {
		u.cleanup()
	}
}

// summarize prints every run's verdict and fails on any regression; verb
// names the command in the final line. The failed tests' full output goes
// to scratch/<run's logs>/.
func summarize(ctx context.Context, w io.Writer, verb, scratch string, runs []suiteRun, baselines []*gotest.Baseline, retry bool, up *upstreamTree) error {
	fmt.Fprintln(w, "\n==> summary")
	failures := 0
	for _, r := range runs {
		opts := verdict.Options{Flags: r.flags, MaxRetries: verdict.DefaultMaxRetries, UpstreamRuns: verdict.DefaultUpstreamRuns,
			UpstreamRaceRuns: verdict.DefaultUpstreamRaceRuns, ForkRaceRuns: verdict.DefaultForkRaceRuns}
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
		if err := v.WriteLogs(filepath.Join(scratch, r.logs)); err != nil {
			return err
		}
		v.Print(w, r.name, len(r.rep.Packages))
		failures += v.Failures()
	}
	for _, b := range baselines {
		verdict.PrintBaseline(w, b)
	}
	if failures > 0 {
		return fmt.Errorf("%d failure(s)", failures)
	}
	fmt.Fprintf(w, "%s: ok\n", verb)
	return nil
}

// BaselineOptions say which baselines to make and how.
type BaselineOptions struct {
	// Base is the upstream commit; Module names it in the headers.
	Base, Module string
	// Runs is how often each suite runs; the baseline is the union.
	Runs int
	// Keep adds to the files' entries instead of replacing them.
	Keep bool
	// RaceOnly and PlainOnly make one of the two client baselines;
	// Revdeps makes only the reverse dependencies' baseline.
	RaceOnly, PlainOnly, Revdeps bool
	// MadeBy and UsedBy are the commands that make and use the baseline,
	// as the files' headers name them.
	MadeBy, UsedBy string
	// Verbose prints every test's output (Options.Verbose).
	Verbose bool
}

// Baseline runs the suites of Test on unpatched upstream and writes the
// union of the failures to the baseline files.
func Baseline(ctx context.Context, o Options, b BaselineOptions) error {
	// What the series touches decides the groups and the race baseline's
	// packages: without the series applied they would silently be none.
	head, err := o.Tree.Head(ctx)
	if err != nil {
		return err
	}
	if head == "" || head == b.Base {
		return hint.Errorf("the work tree holds no applied series (HEAD is upstream's commit), so the packages it touches are unknown; run %s first", hint.Run("apply"))
	}
	wt, cleanup, err := o.Tree.Repo.Scratch(ctx, filepath.Join(o.Scratch, "nomad"), b.Base)
	if err != nil {
		return err
	}
	defer cleanup()
	s, err := Prepare(ctx, wt.Dir, filepath.Join(o.Scratch, "bin"), "baseline", o.Verbose, o.Log)
	if err != nil {
		return err
	}
	if b.Revdeps {
		return revdepsBaseline(ctx, o, s, b)
	}
	racePkgs, err := racePackages(ctx, o.Tree, s)
	if err != nil {
		return err
	}
	if !b.RaceOnly {
		pkgs, err := s.List(ctx, ClientPackages)
		if err != nil {
			return err
		}
		// Packages share the sandbox of their go test invocation, so the
		// plain run groups them as Test does.
		groups := [][]string{verdict.Subtract(pkgs, racePkgs)}
		if len(racePkgs) > 0 {
			groups = append(groups, racePkgs)
		}
		what := fmt.Sprintf("Top-level tests of %s that fail on unpatched %s in the nomadfork sandbox", ClientPackages, b.Module)
		if err := collect(ctx, o.Log, s, groups, nil, what, nil, o.Plain, b); err != nil {
			return err
		}
	}
	if b.PlainOnly {
		return nil
	}
	if len(racePkgs) == 0 {
		if b.RaceOnly {
			return errors.New("the series touches no package that exists upstream; there is nothing to race-test")
		}
		return nil
	}
	what := fmt.Sprintf("Top-level tests that fail under -race on unpatched %s in the nomadfork sandbox, in the packages the series touches", b.Module)
	return collect(ctx, o.Log, s, [][]string{racePkgs}, []string{"-race"}, what, racePkgs, o.Race, b)
}

// collect runs the package groups on upstream b.Runs times and writes the
// union of the failures to file.
func collect(ctx context.Context, log io.Writer, s *suite.Suite, groups [][]string, flags []string, what string, covered []string, file string, b BaselineOptions) error {
	var earlier *gotest.Baseline
	if b.Keep {
		earlier, _ = gotest.ReadBaseline(file)
	}
	n := 0
	tests, passed, skipped, err := verdict.Collect(ctx, b.Runs, earlier, func(ctx context.Context, known *gotest.Baseline, rep *gotest.Report) error {
		n++
		for _, pkgs := range groups {
			step := fmt.Sprintf("go test %s of %d packages of unpatched upstream (sandboxed, run %d of %d, skipping %d known failures)", strings.Join(flags, " "), len(pkgs), n, b.Runs, len(known.Tests))
			if err := progress.Step(log, step, func() error { return s.RunWithBaseline(ctx, pkgs, flags, known, rep) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	out := &gotest.Baseline{
		Header: []string{
			what,
			fmt.Sprintf("for environmental reasons or upstream bugs; %s skips exactly these (go test -skip, per package).", b.UsedBy),
			fmt.Sprintf("Made by %s on %s with %s on %s/%s, %d CPUs, the union of %d run(s)%s; the last run: %d passed, %d skipped.",
				b.MadeBy, time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
				b.Runs, map[bool]string{true: " and the entries before", false: ""}[b.Keep], passed, skipped),
			"Format: package<TAB>test<TAB>reason.",
		},
		Packages: covered,
		Tests:    tests,
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := out.Write(file); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s: %d tests failing on upstream\n", file, len(out.Tests))
	return nil
}

// LineOptions are the Options of a run on the line c pinned by p: its
// work tree, its series and the baseline files of p's version. The
// caller adds where the run works (Scratch, Sim, SimMod) and writes.
func LineOptions(c worktree.Checkout, p *pin.Pin) Options {
	baselines := c.Line.Baselines
	return Options{
		Tree:    c.Tree,
		Plain:   PlainBaseline(baselines, p.Version()),
		Race:    filepath.Join(baselines, "client-race-"+p.Version()+".tsv"),
		Revdeps: filepath.Join(baselines, "revdeps-"+p.Version()+".tsv"),
		Series:  c.Line.Dir,
		Module:  p.Module.Path,
		Version: p.Version(),
	}
}

// PlainBaseline is the file in baselines of the tests of version that fail
// without -race.
func PlainBaseline(baselines, version string) string {
	return filepath.Join(baselines, "client-"+version+".tsv")
}
