package export

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Options are the export verb's flags.
type Options struct {
	// Out is the mboxes' directory; Verify applies each PR's mbox with git
	// am onto a fresh upstream tree, building it unless NoBuild.
	Out             string
	Verify, NoBuild bool
	// Scratch is the tool's own directory for the scratch work trees
	// (tree/, verify/): never under Out, whose files are the user's.
	Scratch string
}

// Flags declares the options' flags on fs; -o defaults to o.Out.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "o", o.Out, "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	fs.BoolVar(&o.Verify, "verify", false, "apply each PR's mbox with plain git am onto a fresh upstream tree and build it")
	fs.BoolVar(&o.NoBuild, "no-build", false, "with -verify, apply only (check builds each patch on its dependencies); make test does so")
}

// Check refuses an empty -o, and -no-build without -verify (it would be
// silently ignored).
func (o Options) Check() error {
	if strings.TrimSpace(o.Out) == "" {
		return cli.UsageError{Err: errors.New("-o needs a directory")}
	}
	if o.NoBuild && !o.Verify {
		return cli.UsageError{Err: errors.New("-no-build goes with -verify (it skips the build of the verified PRs)")}
	}
	return nil
}

// Verb is the export verb with o on the line whose work tree is t and
// whose series, pinned by pinFile, is in dir (in the repository root):
// it exports the series (Export), says what it wrote to t.Log, and with
// o.Verify verifies the PRs (VerifyPRs).
func Verb(ctx context.Context, o Options, t *worktree.Tree, dir, root, pinFile string) error {
	if err := t.Require(ctx, worktree.Need{Verb: "export", NoOp: true}); err != nil {
		return err
	}
	if ps, err := series.List(dir); err == nil && len(ps) == 0 {
		relDir, rerr := filepath.Rel(root, dir)
		if rerr != nil {
			relDir = dir
		}
		return fmt.Errorf("%w: %s holds no NNNN-subject.patch files, so there is nothing to export; restore them (`git checkout -- %s`)",
			series.ErrNoPatches, dir, relDir)
	}
	patches, _, base, err := t.SeriesAndBase(ctx, dir, pinFile, false)
	if err != nil {
		return err
	}
	res, err := Export(ctx, t.Repo, base, patches, o.Out, filepath.Join(o.Scratch, "tree"), t.Log)
	if err != nil {
		return err
	}
	hint.Fprint(t.Log, hint.Sprintf("wrote %s (%d patches) and %d PR mboxes; branches %s* in %s (one per PR)", res.Mbox, len(patches), len(res.PRs), BranchPrefix, hint.WorkTree))
	if o.Verify {
		return VerifyPRs(ctx, t.Repo, base, res.PRs, filepath.Join(o.Scratch, "verify"), !o.NoBuild, t.Log)
	}
	return nil
}
