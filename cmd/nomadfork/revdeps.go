package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/revdeps"
	"github.com/nomad-client-fork/nomad-client-fork/internal/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

// revdepsTimeout bounds one go test binary of the reverse dependencies:
// upstream's server package (nomad/) alone runs for tens of minutes on two
// cores.
const revdepsTimeout = "-timeout=90m"

// revdepsBaselineFile lists the tests of the reverse dependencies that fail
// on unpatched upstream in the sandbox.
func (e *env) revdepsBaselineFile(p *pin.Pin) string {
	return filepath.Join(e.baseline, "revdeps-"+p.Version()+".tsv")
}

// reverseDeps returns the packages outside ./client/... whose tests import,
// directly or transitively, a package the series in t changes, computed in
// dir (the work tree, or an upstream tree for the baseline).
func reverseDeps(ctx context.Context, t *worktree.Tree, dir string) ([]string, error) {
	s := &suite.Suite{Dir: dir, Log: os.Stderr}
	changed, err := racePackages(ctx, t, s)
	if err != nil {
		return nil, err
	}
	if len(changed) == 0 {
		return nil, nil
	}
	clientRoot, err := s.List(ctx, strings.TrimSuffix(clientPackages, "/..."))
	if err != nil || len(clientRoot) != 1 {
		return nil, fmt.Errorf("resolving %s to an import path: %v", clientPackages, err)
	}
	return revdeps.Find(ctx, dir, changed, clientRoot)
}

func runRevdeps(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "revdeps", "[-run] [-v] [-retry=false]")
	runTests := fs.Bool("run", false, "also run their tests in the sandbox against the reverse-dependency baseline (what `make test-full` adds)")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	var pkgs []string
	if err := progress.Step(e.stdout, "finding the packages outside "+clientPackages+" whose tests import a package the series changes (go list -test ./...)", func() error {
		pkgs, err = reverseDeps(ctx, t, t.Dir)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d reverse dependencies: %s\n", len(pkgs), strings.Join(pkgs, " "))
	if len(pkgs) == 0 {
		return nil
	}
	var errs []string
	if err := progress.Step(e.stdout, fmt.Sprintf("type-checking the %d packages with their tests (go vet -buildtag)", len(pkgs)), func() error {
		errs, err = revdeps.Compile(ctx, t.Dir, pkgs)
		return err
	}); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("the series breaks the compilation of %d line(s) in its reverse dependencies (keep upstream's API or declare the change):\n\t%s",
			len(errs), strings.Join(errs, "\n\t"))
	}
	fmt.Fprintf(e.stdout, "revdeps: the tests of all %d reverse dependencies compile\n", len(pkgs))
	if !*runTests {
		return nil
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	known, err := gotest.ReadBaseline(e.revdepsBaselineFile(p))
	if err != nil {
		return err
	}
	if missing := known.Missing(pkgs); len(missing) > 0 {
		return fmt.Errorf("the reverse-dependency baseline %s does not cover %s; run `nomadfork baseline -revdeps` to refresh it",
			e.revdepsBaselineFile(p), strings.Join(missing, ", "))
	}
	s, err := prepareSuite(ctx, e, t.Dir, filepath.Join(e.out, "test", "bin"), "test", *verbose)
	if err != nil {
		return err
	}
	rep := gotest.NewReport()
	flags := []string{revdepsTimeout}
	if err := progress.Step(e.stdout, fmt.Sprintf("go test of the %d reverse dependencies (sandboxed, skipping %d baseline failures)", len(pkgs), len(known.Tests)), func() error {
		return s.RunWithBaseline(ctx, pkgs, flags, known, rep)
	}); err != nil {
		return err
	}
	upstream := &upstreamRerun{e: e, t: t, verbose: *verbose}
	defer upstream.cleanup()
	return summarize(ctx, e, []namedReport{{"go test (reverse dependencies)", s, flags, rep, true}}, []*gotest.Baseline{known}, *retry, upstream)
}

// revdepsBaseline runs the reverse dependencies' tests on unpatched
// upstream (the suite s of an upstream tree) and writes their baseline.
func revdepsBaseline(ctx context.Context, e *env, t *worktree.Tree, s *suite.Suite, p *pin.Pin, runs int, keep bool) error {
	// The reverse dependencies are those of the patched tree; the ones
	// that exist upstream run there.
	if !t.Repo.IsRepo(ctx) {
		return fmt.Errorf("the reverse dependencies are those of the patched tree: run `nomadfork apply` first")
	}
	pkgs, err := reverseDeps(ctx, t, t.Dir)
	if err != nil {
		return err
	}
	var existing []string
	for _, pkg := range pkgs {
		dir := "."
		if pkg != p.Module.Path {
			dir = strings.TrimPrefix(pkg, p.Module.Path+"/")
		}
		if _, err := os.Stat(filepath.Join(s.Dir, dir)); err == nil {
			existing = append(existing, pkg)
		}
	}
	if len(existing) == 0 {
		return fmt.Errorf("the series has no reverse dependencies outside %s; there is nothing to baseline", clientPackages)
	}
	what := fmt.Sprintf("Top-level tests of the packages outside %s whose tests import a package the series changes, that fail on unpatched %s in the nomadfork sandbox", clientPackages, p.Module)
	return baselineRun(ctx, e, s, [][]string{existing}, []string{revdepsTimeout}, what, existing, e.revdepsBaselineFile(p), runs, keep)
}
