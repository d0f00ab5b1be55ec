package export

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
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

// Run is the export verb with o on the line c: it exports the line's
// series (Export), says what it wrote to the work tree's Log, and with
// o.Verify verifies the PRs (VerifyPRs).
func Run(ctx context.Context, c worktree.Checkout, o Options) error {
	t := c.Tree
	if err := t.Require(ctx, worktree.Need{Verb: "export", NoOp: true}); err != nil {
		return err
	}
	if ps, err := series.List(c.Line.Dir); err == nil && len(ps) == 0 {
		return fmt.Errorf("%w: %s holds no NNNN-subject.patch files, so there is nothing to export; restore them (`git checkout -- %s`)",
			series.ErrNoPatches, c.Line.Dir, filepath.Join(line.PatchesDir, c.Line.Name))
	}
	patches, _, base, err := c.SeriesAndBase(ctx, false)
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
