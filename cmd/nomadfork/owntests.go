package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/check"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/suite"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

// checkOwnTests runs, for every patch, the tests its _test.go hunks add or
// change on the base plus exactly its declared dependencies, in the
// sandbox: what a reviewer of the patch's PR runs. The client baseline's
// failures of unpatched upstream are skipped; a failure is retried once.
// Each patch needs its own nomad build (upstream's helper/subproc), so this
// is `check -tests`, not part of every CI run.
func checkOwnTests(ctx context.Context, e *env, t *worktree.Tree, p *pin.Pin, base string, patches []series.Patch, verbose bool) error {
	known, err := gotest.ReadBaseline(e.baselineFile(p))
	if err != nil {
		return err
	}
	nodes, err := check.Graph(patches)
	if err != nil {
		return err
	}
	dir := filepath.Join(e.out, "check-tests", "nomad")
	remove := func() {
		_, _ = t.Repo.Run(context.Background(), "worktree", "remove", "--force", dir)
		_, _ = t.Repo.Run(context.Background(), "worktree", "prune")
	}
	var failures []string
	for _, n := range nodes {
		data, err := os.ReadFile(n.Patch.Path)
		if err != nil {
			return err
		}
		own := check.PatchTests(data)
		if len(own) == 0 {
			fmt.Fprintf(e.stdout, "%s: adds or changes no test\n", n.Patch.Name)
			continue
		}
		remove()
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if _, err := t.Repo.Run(ctx, "worktree", "add", "--quiet", "--detach", "--force", dir, base); err != nil {
			return err
		}
		for _, d := range append(append([]int{}, n.Deps...), n.Patch.Number) {
			cmd := t.Repo.Command(ctx, "am", "--keep-cr", "--committer-date-is-author-date", "--quiet", nodes[d-1].Patch.Path)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				remove()
				return fmt.Errorf("%s: applying %s on the base: %v: %s (run `nomadfork check`)", n.Patch.Name, nodes[d-1].Patch.Name, err, strings.TrimSpace(string(out)))
			}
		}
		on := "the bare base"
		if len(n.Deps) > 0 {
			var deps []string
			for _, d := range n.Deps {
				deps = append(deps, fmt.Sprintf("%04d", d))
			}
			on = "the base + " + strings.Join(deps, " + ")
		}
		s, err := prepareSuite(ctx, e, dir, filepath.Join(e.out, "check-tests", "bin"), "check-tests", verbose)
		if err != nil {
			remove()
			return err
		}
		rep := gotest.NewReport()
		for _, ot := range own {
			names := make([]string, len(ot.Tests))
			for i, name := range ot.Tests {
				names[i] = regexp.QuoteMeta(name)
			}
			pkgs, err := s.List(ctx, "./"+ot.Dir)
			if err != nil || len(pkgs) != 1 {
				remove()
				return fmt.Errorf("%s: listing ./%s: %v", n.Patch.Name, ot.Dir, err)
			}
			var skip []gotest.Known
			for _, k := range known.ByPackage()[pkgs[0]] {
				skip = append(skip, k)
			}
			inv := suiteInvocation(pkgs, "^("+strings.Join(names, "|")+")$", skip)
			step := fmt.Sprintf("%s: go test -run of its %d test(s) in ./%s on %s (sandboxed)", n.Patch.Name, len(ot.Tests), ot.Dir, on)
			if err := progress.Step(e.stdout, step, func() error { return s.Run(ctx, inv, rep) }); err != nil {
				remove()
				return err
			}
		}
		failed := rep.Select("fail")
		if len(failed) > 0 {
			var flaky []gotest.Result
			flaky, failed, err = s.Retry(ctx, failed, nil)
			if err != nil {
				remove()
				return err
			}
			for _, f := range flaky {
				fmt.Fprintf(e.stdout, "    FLAKY %s: failed, then passed on retry\n", f.Name())
			}
		}
		for _, f := range failed {
			failures = append(failures, fmt.Sprintf("%s: %s fails on %s", n.Patch.Name, f.Name(), on))
			printTail(e.stdout, f.Output)
		}
		for _, f := range rep.FailedPackages() {
			failures = append(failures, fmt.Sprintf("%s: package %s fails on %s", n.Patch.Name, f.Package, on))
			printTail(e.stdout, f.Output)
		}
		fmt.Fprintf(e.stdout, "%s: %d of its tests passed on %s, %d failed\n", n.Patch.Name, len(rep.Select("pass")), on, len(failed))
	}
	remove()
	if len(failures) > 0 {
		return fmt.Errorf("%d patch test failure(s):\n\t%s", len(failures), strings.Join(failures, "\n\t"))
	}
	return nil
}

func suiteInvocation(pkgs []string, run string, skip []gotest.Known) suite.Invocation {
	inv := suite.Invocation{Packages: pkgs, Run: run}
	if len(skip) > 0 {
		inv.Skip = gotest.SkipPattern(skip)
	}
	return inv
}
