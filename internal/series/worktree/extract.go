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
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return nil, fmt.Errorf("no work tree at %s; run `nomadfork apply` first", t.Dir)
	}
	base, err := t.Base(ctx)
	if err != nil {
		return nil, err
	}
	if base == "" {
		return nil, fmt.Errorf("%s has no %q branch (the base ref), so nomadfork cannot tell which commits are the series; run `nomadfork apply` to recreate it", t.Dir, BaseBranch)
	}
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return nil, err
	}
	if inAm {
		return nil, fmt.Errorf("an apply is stopped at a conflict in %s; finish it with `nomadfork apply --continue` first", t.Dir)
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
