package worktree

import (
	"context"
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// Extract writes the work tree's commits since the base to dir as patch
// files and records that the work tree now matches them.
func (t *Tree) Extract(ctx context.Context, dir string) ([]series.Change, error) {
	if err := t.Require(ctx, Need{Verb: "extract", Base: true, NoOp: true, ForkTip: true}); err != nil {
		return nil, err
	}
	base, err := t.Base(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", base, "HEAD"); err != nil {
		return nil, fmt.Errorf("HEAD of %s is not based on the %q branch; check out the fork branch: %w", t.Dir, BaseBranch, err)
	}
	merges, err := t.Repo.Lines(ctx, "rev-list", "--merges", base+"..HEAD")
	if err != nil {
		return nil, err
	}
	if len(merges) > 0 {
		return nil, fmt.Errorf("the series must be linear, but %s..HEAD has merge commits %s; rebase them away", BaseBranch, strings.Join(merges, ", "))
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		fmt.Fprintf(t.Log, "note: %d uncommitted changes in %s are not extracted; commit them and extract again to include them\n", len(dirty), t.Dir)
	}
	files, err := series.Export(ctx, t.Repo, base, "HEAD")
	if err != nil {
		return nil, err
	}
	changes, err := series.Write(dir, files, false)
	if err != nil {
		return nil, err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return nil, err
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	state.Base, state.Applied, state.Resolved, state.Pending = base, head, nil, nil
	return changes, t.SaveState(ctx, state)
}
