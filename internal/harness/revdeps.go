package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/revdeps"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// revdepsTimeout bounds one go test binary of the reverse dependencies:
// upstream's server package (nomad/) alone runs for tens of minutes on two
// cores.
const revdepsTimeout = "-timeout=90m"

// reverseDeps returns the packages outside ClientPackages whose tests
// import, directly or transitively, a package the series of the work tree
// changes, computed in dir (the work tree, or an upstream tree).
func reverseDeps(ctx context.Context, o Options, dir string) ([]string, error) {
	s := &suite.Suite{Dir: dir, Log: o.Log}
	changed, err := racePackages(ctx, o.Tree, s)
	if err != nil || len(changed) == 0 {
		return nil, err
	}
	clientRoot, err := s.List(ctx, strings.TrimSuffix(ClientPackages, "/..."))
	if err != nil || len(clientRoot) != 1 {
		return nil, fmt.Errorf("resolving %s to an import path: %v", ClientPackages, err)
	}
	return revdeps.Find(ctx, dir, changed, clientRoot)
}

// RevdepsOptions say what Revdeps does beyond type-checking.
type RevdepsOptions struct {
	// Run runs the tests in the sandbox.
	Run bool
	// NoBaseline runs them without the baseline o.Revdeps: every failure
	// is retried and tried on unpatched upstream (UPSTREAM if it fails
	// there too), which is slower and, past verdict.DefaultMaxRetries
	// failures, counts them all.
	NoBaseline bool
	// Retry judges failures by a retry and on upstream.
	Retry bool
	// Verbose prints every test's output (Options.Verbose).
	Verbose bool
}

// Revdeps type-checks, with go vet, the tests of every package outside
// ClientPackages that imports what the series changes; with r.Run it also
// runs them in the sandbox against the reverse-dependency baseline
// o.Revdeps, judged like Test's suites.
func Revdeps(ctx context.Context, o Options, r RevdepsOptions) error {
	var pkgs []string
	var err error
	if err := progress.Step(o.Log, "finding the packages outside "+ClientPackages+" whose tests import a package the series changes (go list -test ./...)", func() error {
		pkgs, err = reverseDeps(ctx, o, o.Tree.Dir)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "%d reverse dependencies: %s\n", len(pkgs), strings.Join(pkgs, " "))
	if len(pkgs) == 0 {
		return nil
	}
	var errs []string
	if err := progress.Step(o.Log, fmt.Sprintf("type-checking the %d packages with their tests (go vet)", len(pkgs)), func() error {
		errs, err = revdeps.Compile(ctx, o.Tree.Dir, pkgs)
		return err
	}); err != nil {
		return err
	}
	if len(errs) > 0 {
		return fmt.Errorf("the series breaks the compilation of %d line(s) in its reverse dependencies (keep upstream's API or declare the change):\n\t%s",
			len(errs), strings.Join(errs, "\n\t"))
	}
	fmt.Fprintf(o.Log, "revdeps: the tests of all %d reverse dependencies compile\n", len(pkgs))
	if !r.Run {
		return nil
	}
	if r.NoBaseline && !r.Retry {
		return fmt.Errorf("without the baseline failures are judged on upstream: -no-baseline needs -retry")
	}
	known := &gotest.Baseline{Header: []string{"no reverse-dependency baseline: every failure is tried on unpatched upstream"}}
	if !r.NoBaseline {
		if known, err = gotest.ReadBaseline(o.Revdeps); err != nil {
			return hint.Errorf("%w: make it with %s (hours on 2 cores), or pass -no-baseline to try every failure on unpatched upstream instead", err, hint.Run("baseline", "-revdeps"))
		}
		if missing := known.Missing(pkgs); len(missing) > 0 {
			return hint.Errorf("the reverse-dependency baseline %s does not cover %s; run %s to refresh it",
				o.Revdeps, strings.Join(missing, ", "), hint.Run("baseline", "-revdeps"))
		}
	}
	s, err := Prepare(ctx, o.Tree.Dir, filepath.Join(o.Scratch, "bin"), "test", o.Verbose, o.Log)
	if err != nil {
		return err
	}
	run := suiteRun{name: "go test (reverse dependencies)", logs: "tests", suite: s, flags: []string{revdepsTimeout, noVet}, rep: gotest.NewReport(), upstream: true}
	what := fmt.Sprintf("go test of the %d reverse dependencies (sandboxed, skipping %d baseline failures)", len(pkgs), len(known.Tests))
	if err := progress.Step(o.Log, what, func() error { return s.RunWithBaseline(ctx, pkgs, run.flags, known, run.rep) }); err != nil {
		return err
	}
	up := &upstreamTree{o: o}
	defer up.close()
	return summarize(ctx, o.Log, "revdeps", o.Scratch, []suiteRun{run}, []*gotest.Baseline{known}, r.Retry, up)
}

// revdepsBaseline runs the reverse dependencies' tests on unpatched
// upstream (the suite s of an upstream tree) and writes their baseline.
// The reverse dependencies are those of the patched tree; the ones that
// exist upstream run there.
func revdepsBaseline(ctx context.Context, o Options, s *suite.Suite, b BaselineOptions) error {
	pkgs, err := reverseDeps(ctx, o, o.Tree.Dir)
	if err != nil {
		return hint.Errorf("finding the reverse dependencies of %s's series: %w", hint.WorkTree, err)
	}
	var existing []string
	for _, pkg := range pkgs {
		dir := "."
		if pkg != o.Module {
			dir = strings.TrimPrefix(pkg, o.Module+"/")
		}
		if _, err := os.Stat(filepath.Join(s.Dir, dir)); err == nil {
			existing = append(existing, pkg)
		}
	}
	if len(existing) == 0 {
		return hint.Errorf("%s's series has no reverse dependencies outside %s; there is nothing to baseline (if %s holds no patches, run %s first)", hint.WorkTree, ClientPackages, hint.WorkTree, hint.Run("apply"))
	}
	what := fmt.Sprintf("Top-level tests of the packages outside %s whose tests import a package the series changes, that fail on unpatched %s in the nomadfork sandbox", ClientPackages, b.Module)
	return collect(ctx, o.Log, s, [][]string{existing}, []string{revdepsTimeout}, what, existing, o.Revdeps, b)
}
