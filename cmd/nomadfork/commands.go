package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/check"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

func runApply(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "apply", "[-force] [-continue]")
	force := fs.Bool("force", false, "discard uncommitted changes, unexported commits and a stopped apply in nomad/")
	cont := fs.Bool("continue", false, "resume an apply that stopped at a conflict, after resolving and `git add`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *force && *cont {
		return usageError{errors.New("-force and -continue exclude each other")}
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	p, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, worktree.ApplyOptions{Force: *force, Continue: *cont}); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "nomad/ is upstream %s plus %d patch(es), HEAD %s\n", p.Version(), len(patches), head)
	return nil
}

func runExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "extract", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	changes, err := t.Extract(ctx, e.patches)
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Fprintf(e.stdout, "%-9s patches/%s\n", c.Action, c.Name)
	}
	if len(changes) == 0 {
		fmt.Fprintln(e.stdout, "the series is empty: nomad/ has no commits after the upstream base")
	}
	return nil
}

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[-no-build]")
	noBuild := fs.Bool("no-build", false, "skip building and vetting every prefix of the series")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	_, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{
		Repo:    t.Repo,
		Base:    base,
		Scratch: filepath.Join(e.out, "check"),
		Build:   !*noBuild,
		Log:     e.stdout,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func runBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "build", "[-o file]")
	out := fs.String("o", filepath.Join(e.bin, "nomad"), "write the binary to `file`")
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
	release, err := build.ForkRelease(e.log, p.Version())
	if err != nil {
		return err
	}
	stamp, err := build.StampOf(ctx, t.Repo, release)
	if err != nil {
		return err
	}
	err = progress.Step(e.stdout, fmt.Sprintf("building %s (Nomad %s+%s, revision %s)", *out, p.Version(), release, stamp.Revision), func() error {
		return build.Nomad(ctx, t.Dir, *out, stamp)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "built %s; `%s version` prints the version\n", *out, *out)
	return nil
}

func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintln(e.stderr, "usage: nomadfork sandbox -- command [args...]\n\n"+
			"Runs the command in new network, mount and PID namespaces: only lo and a veth pair\n"+
			"with a default route via 192.0.2.254 that leads nowhere; 169.254.0.0/16 and the\n"+
			"private ranges unreachable; the machine's cgroups hidden; every process killed\n"+
			"when the command exits. Needs root, unshare (util-linux) and ip (iproute2).")
		if len(args) == 0 {
			return usageError{errors.New("no command given")}
		}
		return nil
	}
	err := sandbox.Run("", nil, args...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitCode(exit.ExitCode())
	}
	return err
}

// testRun is the shared part of test and baseline: download, build the
// tree's nomad onto PATH, run the client tests in the sandbox.
type testRun struct {
	e       *env
	dir     string // the nomad module to test
	binDir  string
	stamp   build.Stamp
	verbose bool
}

func (r *testRun) prepare(ctx context.Context) (*suite.Suite, error) {
	s := &suite.Suite{Dir: r.dir, BinDir: r.binDir, Log: r.e.stdout, Verbose: r.verbose}
	if err := progress.Step(r.e.stdout, "downloading test modules (before the network is cut)", func() error {
		return s.Download(ctx)
	}); err != nil {
		return nil, err
	}
	err := progress.Step(r.e.stdout, "building the tree's nomad for helper/subproc", func() error {
		return build.Nomad(ctx, r.dir, filepath.Join(r.binDir, "nomad"), r.stamp)
	})
	return s, err
}

func runTest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "test", "[-v] [-race=false] [-retry=true] [-sim=true]")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	race := fs.Bool("race", true, "also run the packages the series touches with -race")
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
	stamp, err := build.StampOf(ctx, t.Repo, "test")
	if err != nil {
		return err
	}
	run := &testRun{e: e, dir: t.Dir, binDir: filepath.Join(e.out, "test", "bin"), stamp: stamp, verbose: *verbose}
	s, err := run.prepare(ctx)
	if err != nil {
		return err
	}
	pkgs, err := s.List(ctx, "./client/...")
	if err != nil {
		return err
	}
	var results []namedReport
	rep := gotest.NewReport()
	if err := progress.Step(e.stdout, fmt.Sprintf("go test ./client/... (%d packages, sandboxed, skipping %d baseline failures)", len(pkgs), len(known.Tests)), func() error {
		return s.RunWithBaseline(ctx, pkgs, nil, known, rep)
	}); err != nil {
		return err
	}
	results = append(results, namedReport{"go test ./client/...", s, nil, rep})

	if *race {
		base, err := t.Base(ctx)
		if err != nil {
			return err
		}
		touched, err := worktree.ChangedPackages(ctx, t.Repo, base, "HEAD")
		if err != nil {
			return err
		}
		if len(touched) > 0 {
			racePkgs, err := s.List(ctx, touched...)
			if err != nil {
				return err
			}
			raceRep := gotest.NewReport()
			flags := []string{"-race"}
			if err := progress.Step(e.stdout, "go test -race "+strings.Join(touched, " ")+" (the packages the series touches)", func() error {
				return s.RunWithBaseline(ctx, racePkgs, flags, known, raceRep)
			}); err != nil {
				return err
			}
			results = append(results, namedReport{"go test -race (touched packages)", s, flags, raceRep})
		}
	}
	if _, err := os.Stat(filepath.Join(e.sim, "go.mod")); err == nil && *sim {
		ss := &suite.Suite{Dir: e.sim, BinDir: run.binDir, Log: e.stdout, Verbose: *verbose}
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
		results = append(results, namedReport{"go test -race sim/...", ss, flags, simRep})
	}
	return summarize(ctx, e, results, known, *retry)
}

type namedReport struct {
	name  string
	suite *suite.Suite
	flags []string
	rep   *gotest.Report
}

// summarize prints packages, passed, failed and skipped tests of every
// report and returns an error if anything failed (after one retry).
func summarize(ctx context.Context, e *env, results []namedReport, known *gotest.Baseline, retry bool) error {
	w := e.stdout
	failures := 0
	fmt.Fprintln(w, "\n==> summary")
	for _, r := range results {
		passed, failed, skipped := r.rep.Select("pass"), r.rep.Select("fail"), r.rep.Select("skip")
		pkgFail := r.rep.FailedPackages()
		fmt.Fprintf(w, "%s: %d packages, %d passed, %d failed, %d skipped\n", r.name, len(r.rep.Packages), len(passed), len(failed), len(skipped))
		for _, s := range skipped {
			fmt.Fprintf(w, "    skip %s: %s\n", s.Name(), gotest.SkipReason(s))
		}
		var flaky, still []gotest.Result
		if retry && len(failed) > 0 && len(failed) <= 20 {
			var err error
			flaky, still, err = r.suite.Retry(ctx, failed, r.flags)
			if err != nil {
				return err
			}
		} else {
			still = failed
		}
		for _, f := range flaky {
			fmt.Fprintf(w, "    FLAKY %s: failed, then passed on retry\n", f.Name())
		}
		for _, f := range still {
			failures++
			fmt.Fprintf(w, "    FAIL %s (regression: not a baseline failure)\n", f.Name())
			for _, line := range tail(f.Output, 30) {
				fmt.Fprintf(w, "        %s\n", line)
			}
		}
		for _, f := range pkgFail {
			failures++
			fmt.Fprintf(w, "    FAIL package %s\n", f.Package)
			for _, line := range tail(f.Output, 30) {
				fmt.Fprintf(w, "        %s\n", line)
			}
		}
	}
	fmt.Fprintf(w, "baseline: %d tests skipped as environmental failures of unpatched upstream:\n", len(known.Tests))
	for _, k := range known.Tests {
		fmt.Fprintf(w, "    %s.%s: %s\n", k.Package, k.Test, k.Reason)
	}
	if failures > 0 {
		return fmt.Errorf("%d failure(s)", failures)
	}
	fmt.Fprintln(w, "test: ok")
	return nil
}

func tail(lines []string, n int) []string {
	if len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}

func runBaseline(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "baseline", "[-v]")
	verbose := fs.Bool("v", false, "print every test's output")
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
	stamp, err := build.StampOf(ctx, &git.Repo{Dir: scratch}, "baseline")
	if err != nil {
		return err
	}
	run := &testRun{e: e, dir: scratch, binDir: filepath.Join(e.out, "baseline", "bin"), stamp: stamp, verbose: *verbose}
	s, err := run.prepare(ctx)
	if err != nil {
		return err
	}
	pkgs, err := s.List(ctx, "./client/...")
	if err != nil {
		return err
	}
	rep := gotest.NewReport()
	if err := progress.Step(e.stdout, fmt.Sprintf("go test ./client/... of unpatched %s (%d packages, sandboxed)", p.Module, len(pkgs)), func() error {
		return s.Run(ctx, suite.Invocation{Packages: pkgs}, rep)
	}); err != nil {
		return err
	}
	if pf := rep.FailedPackages(); len(pf) > 0 {
		return fmt.Errorf("package %s fails on upstream without a failing test (build failure or panic); the baseline cannot skip it:\n%s",
			pf[0].Package, strings.Join(tail(pf[0].Output, 30), "\n"))
	}
	b := &gotest.Baseline{Header: []string{
		fmt.Sprintf("Top-level tests of ./client/... that fail on unpatched %s in the nomadfork sandbox", p.Module),
		"for environmental reasons; `nomadfork test` skips exactly these (go test -skip, per package).",
		fmt.Sprintf("Made by `nomadfork baseline` on %s with %s on %s/%s, %d CPUs: %d passed, %d failed, %d skipped.",
			time.Now().UTC().Format("2006-01-02"), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
			len(rep.Select("pass")), len(rep.Select("fail")), len(rep.Select("skip"))),
		"Format: package<TAB>test<TAB>reason.",
	}}
	for _, f := range rep.Select("fail") {
		b.Tests = append(b.Tests, gotest.Known{Package: f.Package, Test: f.Test, Reason: gotest.Reason(f)})
	}
	if err := os.MkdirAll(e.baseline, 0o755); err != nil {
		return err
	}
	file := e.baselineFile(p)
	if err := b.Write(file); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s: %d passed, %d failing on upstream\n", file, len(rep.Select("pass")), len(b.Tests))
	return nil
}
