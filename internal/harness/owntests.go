package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/verdict"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// OwnTests runs, for every patch, the tests its _test.go hunks add or
// change on base plus exactly its declared dependencies, in the sandbox:
// what a reviewer of the patch's pull request runs. The client baseline's
// failures of unpatched upstream are skipped; a failure is retried once
// (FLAKY if it then passes). Each patch needs its own nomad build
// (upstream's helper/subproc), so this is `check -tests`, not part of
// every CI run.
func OwnTests(ctx context.Context, o Options, base string, patches []series.Patch) error {
	known, err := gotest.ReadBaseline(o.Plain)
	if err != nil {
		return err
	}
	nodes, err := series.Graph(patches)
	if err != nil {
		return err
	}
	wt, cleanup, err := o.Tree.Repo.Scratch(ctx, filepath.Join(o.Scratch, "nomad"), base)
	if err != nil {
		return err
	}
	defer cleanup()
	failures := 0
	for _, n := range nodes {
		own := n.Patch.OwnTests()
		if len(own) == 0 {
			fmt.Fprintf(o.Log, "%s: adds or changes no test\n", n.Patch.Name)
			continue
		}
		on := n.On()
		if failed, err := series.ApplyOn(ctx, wt, base, n.WithDeps(nodes)); err != nil {
			if failed == nil {
				return err
			}
			return hint.Errorf("%s: applying %s on %s: %w (run %s)", n.Patch.Name, failed.Name, on, err, hint.Run("check"))
		}
		s, err := Prepare(ctx, wt.Dir, filepath.Join(o.Scratch, "bin"), "check-tests", o.Verbose, o.Log)
		if err != nil {
			return err
		}
		rep := gotest.NewReport()
		for _, ot := range own {
			if err := runOwn(ctx, o, s, n.Patch.Name, on, ot, known, rep); err != nil {
				return err
			}
		}
		v, err := verdict.Judge(ctx, rep, verdict.Options{Fork: s.Outcomes, MaxRetries: verdict.DefaultMaxRetries})
		if err != nil {
			return err
		}
		v.Print(o.Log, fmt.Sprintf("%s: its own tests on %s", n.Patch.Name, on), len(rep.Packages))
		failures += v.Failures()
	}
	if failures > 0 {
		return fmt.Errorf("%d patch test failure(s) on the base plus the patches' declared dependencies", failures)
	}
	return nil
}

// runOwn runs the tests ot names in their package, skipping the baseline's
// failures there.
func runOwn(ctx context.Context, o Options, s *suite.Suite, name, on string, ot series.OwnTests, known *gotest.Baseline, rep *gotest.Report) error {
	names := make([]string, len(ot.Tests))
	for i, t := range ot.Tests {
		names[i] = regexp.QuoteMeta(t)
	}
	pkgs, err := s.List(ctx, "./"+ot.Dir)
	if err != nil {
		return err
	}
	if len(pkgs) != 1 {
		return fmt.Errorf("%s: ./%s is not one package (%d)", name, ot.Dir, len(pkgs))
	}
	inv := suite.Invocation{Packages: pkgs, Run: "^(" + strings.Join(names, "|") + ")$"}
	if skip := known.ByPackage()[pkgs[0]]; len(skip) > 0 {
		inv.Skip = gotest.SkipPattern(skip)
	}
	step := fmt.Sprintf("%s: go test -run of its %d test(s) in ./%s on %s (sandboxed)", name, len(ot.Tests), ot.Dir, on)
	return progress.Step(o.Log, step, func() error { return s.Run(ctx, inv, rep) })
}
