package harness

import (
	"context"
	"errors"
	"fmt"
	"go/version"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/contract"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// Contract runs upstream's unchanged tests against the patched code: in a
// scratch tree of the work tree's HEAD, every _test.go file the series
// modifies or deletes is put back to upstream's version, and the tests of
// those packages run in the sandbox. A test that fails there counts unless
// the client baseline lists it, a retry passes, it fails on unpatched
// upstream too, or a Changes-Test trailer of the series names it. keep
// leaves the tree for inspection.
func Contract(ctx context.Context, o Options, retry, keep bool, only []string) error {
	base, err := o.Tree.Base(ctx)
	if err != nil {
		return err
	}
	patches, err := series.List(o.Series)
	if err != nil {
		return err
	}
	module := o.Module
	known, err := gotest.ReadBaseline(o.Plain)
	if err != nil {
		return err
	}
	changed, err := ChangedTests(patches, module)
	if err != nil {
		return err
	}
	byDir := map[string][]string{}
	for _, k := range changed {
		dir := strings.TrimPrefix(k.Package, module+"/")
		byDir[dir] = append(byDir[dir], k.Test)
	}
	dir := filepath.Join(o.Scratch, "nomad")
	var tr *contract.Tree
	if err := progress.Step(o.Log, "restoring upstream's version of every _test.go the series modifies (scratch tree "+dir+")", func() error {
		tr, err = contract.Prepare(ctx, o.Tree.Repo, base, "HEAD", dir, byDir, only, o.Log)
		return err
	}); err != nil {
		return err
	}
	if !keep {
		defer tr.Cleanup()
	}
	fmt.Fprintf(o.Log, "restored %d upstream test file(s): %s\n", len(tr.Restored), strings.Join(tr.Restored, " "))
	if len(tr.Skipped) > 0 {
		fmt.Fprintf(o.Log, "left out by -pkgs (run them with contract alone, as make test-full does): %s\n", strings.Join(tr.Skipped, " "))
	}
	if len(tr.Kept) > 0 {
		fmt.Fprintf(o.Log, "kept the series' version of %d test(s) named by Changes-Test: %s\n", len(tr.Kept), strings.Join(tr.Kept, " "))
	}
	if len(tr.LeftOut) > 0 {
		fmt.Fprintf(o.Log, "left out %d new test file(s) of the series that collide with upstream's: %s\n", len(tr.LeftOut), strings.Join(tr.LeftOut, " "))
	}
	var broken []error
	for _, b := range tr.Broken {
		broken = append(broken, b)
		fmt.Fprintf(o.Log, "contract: FAIL %s: upstream's tests do not compile against the patched code (the others run; details at the end)\n", b.Package)
	}
	if len(tr.Packages) == 0 {
		if len(broken) == 0 {
			fmt.Fprintln(o.Log, "contract: the series changes no upstream test file; nothing to run")
		}
		return errors.Join(broken...)
	}
	s, err := Prepare(ctx, tr.Dir, filepath.Join(o.Scratch, "bin"), "contract", o.Verbose, o.Log)
	if err != nil {
		return err
	}
	pkgs, err := s.List(ctx, tr.Packages...)
	if err != nil {
		return err
	}
	// The tests a patch deliberately changes are skipped like the
	// baseline's, with the patch as the reason.
	skip := &gotest.Baseline{Header: []string{"contract: the client baseline plus the tests Changes-Test trailers name"}}
	skip.Tests = append(append(skip.Tests, known.Tests...), changed...)
	vet, err := userVet(filepath.Join(tr.Dir, "go.mod"))
	if err != nil {
		return err
	}
	r := suiteRun{name: "contract: upstream's unchanged tests on the patched code", logs: "tests", suite: s, flags: vet, rep: gotest.NewReport(), upstream: true}
	what := fmt.Sprintf("go test of %d packages with upstream's unchanged tests (sandboxed, skipping %d baseline failures and %d Changes-Test tests)", len(pkgs), len(known.Tests), len(changed))
	if err := progress.Step(o.Log, what, func() error { return s.RunWithBaseline(ctx, pkgs, r.flags, skip, r.rep) }); err != nil {
		return err
	}
	up := &upstreamTree{o: o}
	defer up.close()
	err = summarize(ctx, o.Log, "contract", o.Scratch, []suiteRun{r}, []*gotest.Baseline{skip}, retry, up)
	return errors.Join(append(broken, err)...)
}

// noVet turns off the vet checks go test runs before the tests, for runs of
// upstream's unchanged test files on the patched code (contract on a tree
// at go 1.24 or later, revdeps -run). Vet is a static check, not part of
// the behaviour those tests compare: a series that raises the module's go
// directive to 1.24 or later makes vet report non-constant format strings
// in upstream's own files (t.Fatalf(err.Error())), which would stop their
// packages' tests from running at all. It is the flag README's go-test
// section and 0011's message tell users to pass there. check still vets
// what each patch changes against upstream's findings.
const noVet = "-vet=off"

// vetPrintfConstGo is the go directive from which go test's printf check
// refuses non-constant format strings.
const vetPrintfConstGo = "1.24"

// userVet returns the vet flags a user's go test of the tree at the
// module gomod needs for upstream's unchanged tests: none (go test's
// default checks) while the go directive is older than 1.24, else noVet.
// contract runs with them, so it runs upstream's tests as a user does.
func userVet(gomod string) ([]string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, fmt.Errorf("reading the go directive: %w", err)
	}
	f, err := modfile.ParseLax(gomod, data, nil)
	if err != nil {
		return nil, fmt.Errorf("reading the go directive: %w", err)
	}
	if f.Go == nil || version.Compare("go"+f.Go.Version, "go"+vetPrintfConstGo) < 0 {
		return nil, nil
	}
	return []string{noVet}, nil
}

// ChangedTests returns the tests the series' Changes-Test trailers name, as
// baseline entries of module's packages whose reason names the patch.
func ChangedTests(patches []series.Patch, module string) ([]gotest.Known, error) {
	var out []gotest.Known
	for _, p := range patches {
		md, err := p.Metadata()
		if err != nil {
			return nil, err
		}
		for _, ct := range md.ChangedTests() {
			out = append(out, gotest.Known{
				Package: module + "/" + ct.Dir,
				Test:    ct.Test,
				Reason:  fmt.Sprintf("deliberately changed by %04d (Changes-Test)", p.Number),
			})
		}
	}
	return out, nil
}
