package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/contract"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/metadata"
	"github.com/nomad-client-fork/nomad-client-fork/internal/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// runContract runs upstream's unchanged tests against the patched code: in a
// scratch tree of the work tree's HEAD, every _test.go file the series
// modifies or deletes is put back to upstream's version, and the tests of
// those packages run in the sandbox. A test that fails there counts unless
// the baseline lists it, a retry passes, it fails on unpatched upstream too,
// or a Changes-Test trailer names it as deliberately changed.
func runContract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "contract", "[-v] [-retry=false] [-keep]")
	verbose := fs.Bool("v", false, "print every test's output, not only failures")
	retry := fs.Bool("retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
	keep := fs.Bool("keep", false, "keep the contract tree in out/contract/nomad for inspection")
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
	base, err := t.Base(ctx)
	if err != nil {
		return err
	}
	known, err := gotest.ReadBaseline(e.baselineFile(p))
	if err != nil {
		return err
	}
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	changed, err := changedTests(patches, p)
	if err != nil {
		return err
	}
	dir := filepath.Join(e.out, "contract", "nomad")
	var tr *contract.Tree
	err = progress.Step(e.stdout, "restoring upstream's version of every _test.go the series modifies (scratch tree "+dir+")", func() error {
		tr, err = contract.Prepare(ctx, t.Repo, base, "HEAD", dir, changedByDir(changed, p), e.stdout)
		return err
	})
	if !*keep {
		defer contract.Remove(t.Repo, dir)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "restored %d upstream test file(s): %s\n", len(tr.Restored), strings.Join(tr.Restored, " "))
	if len(tr.Kept) > 0 {
		fmt.Fprintf(e.stdout, "kept the series' version of %d test(s) named by Changes-Test: %s\n", len(tr.Kept), strings.Join(tr.Kept, " "))
	}
	if len(tr.LeftOut) > 0 {
		fmt.Fprintf(e.stdout, "left out %d new test file(s) of the series that collide with upstream's: %s\n", len(tr.LeftOut), strings.Join(tr.LeftOut, " "))
	}
	var broken []string
	for _, b := range tr.Broken {
		broken = append(broken, b.Error())
		fmt.Fprintf(e.stdout, "contract: FAIL %s: upstream's tests do not compile against the patched code (the others run; details at the end)\n", b.Package)
	}
	if len(tr.Packages) == 0 {
		if len(broken) > 0 {
			return fmt.Errorf("%s", strings.Join(broken, "\n"))
		}
		fmt.Fprintln(e.stdout, "contract: the series changes no upstream test file; nothing to run")
		return nil
	}
	s, err := prepareSuite(ctx, e, tr.Dir, filepath.Join(e.out, "contract", "bin"), "contract", *verbose)
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
	for _, k := range known.Tests {
		skip.Tests = append(skip.Tests, k)
	}
	skip.Tests = append(skip.Tests, changed...)
	rep := gotest.NewReport()
	if err := progress.Step(e.stdout, fmt.Sprintf("go test of %d packages with upstream's unchanged tests (sandboxed, skipping %d baseline failures and %d Changes-Test tests)", len(pkgs), len(known.Tests), len(changed)), func() error {
		return s.RunWithBaseline(ctx, pkgs, nil, skip, rep)
	}); err != nil {
		return err
	}
	upstream := &upstreamRerun{e: e, t: t, verbose: *verbose}
	defer upstream.cleanup()
	err = summarize(ctx, e, []namedReport{{"contract: upstream's unchanged tests on the patched code", s, nil, rep, true}}, []*gotest.Baseline{skip}, *retry, upstream)
	if len(broken) > 0 {
		if err != nil {
			broken = append(broken, err.Error())
		}
		return fmt.Errorf("%s", strings.Join(broken, "\n"))
	}
	return err
}

// changedTests returns the tests the series' Changes-Test trailers name,
// as baseline entries whose reason names the patch.
func changedTests(patches []series.Patch, p *pin.Pin) ([]gotest.Known, error) {
	var out []gotest.Known
	for _, pt := range patches {
		data, err := os.ReadFile(pt.Path)
		if err != nil {
			return nil, err
		}
		md, err := metadata.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pt.Name, err)
		}
		for _, ct := range md.ChangedTests() {
			out = append(out, gotest.Known{
				Package: p.Module.Path + "/" + ct.Dir,
				Test:    ct.Test,
				Reason:  fmt.Sprintf("deliberately changed by %04d (Changes-Test)", pt.Number),
			})
		}
	}
	return out, nil
}

// changedByDir maps package directories to the Changes-Test names in them.
func changedByDir(changed []gotest.Known, p *pin.Pin) map[string][]string {
	out := map[string][]string{}
	for _, k := range changed {
		dir := strings.TrimPrefix(k.Package, p.Module.Path+"/")
		out[dir] = append(out[dir], k.Test)
	}
	return out
}
