package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/export"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "[-o dir] [-verify [-no-build]]")
	out := fs.String("o", filepath.Join(e.out, "export"), "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	verify := fs.Bool("verify", false, "apply each PR's mbox with plain git am onto a fresh upstream tree and build it")
	noBuild := fs.Bool("no-build", false, "with -verify, apply only (check builds each patch on its dependencies); make test does so")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if strings.TrimSpace(*out) == "" {
		return usageError(errors.New("-o needs a directory"))
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "export", NoOp: true}); err != nil {
		return err
	}
	if ps, err := series.List(e.line.Dir); err == nil && len(ps) == 0 {
		return fmt.Errorf("%w: %s holds no NNNN-subject.patch files, so there is nothing to export; restore them (`git checkout -- %s`)",
			series.ErrNoPatches, e.line.Dir, e.relPatches())
	}
	patches, _, base, err := t.SeriesAndBase(ctx, e.line.Dir, e.line.Pin, false)
	if err != nil {
		return err
	}
	res, err := export.Export(ctx, t.Repo, base, patches, *out, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d patches) and %d PR mboxes; branches %s* in %s (one per PR)\n", res.Mbox, len(patches), len(res.PRs), export.BranchPrefix, e.relWorkTree())
	if *verify {
		return export.VerifyPRs(ctx, t.Repo, base, res.PRs, filepath.Join(*out, "verify"), !*noBuild, e.stdout)
	}
	return nil
}

func init() {
	register(command{Name: "export", Summary: "upstream-ready commits: per PR (a patch and its Depends-On) a branch and an mbox", Run: runExport, Lock: true})
}
