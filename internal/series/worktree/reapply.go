package worktree

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// Reapply applies patches again after a patch file was edited, when the
// work tree holds the series as last applied or extracted, so that the
// next extract keeps the edit. It reports false, having done nothing,
// when the work tree does not hold that series (missing, uncommitted
// changes, or commits other than the ones last applied).
func (t *Tree) Reapply(ctx context.Context, patches []series.Patch) (bool, error) {
	if ok, err := t.HasRepo(ctx); !ok || err != nil {
		return false, err
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return false, err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return false, err
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return false, err
	}
	base, err := t.Base(ctx)
	if err != nil {
		return false, err
	}
	if head != "" && base != "" && head != state.Applied && len(dirty) == 0 {
		// Not recorded as applied, but perhaps it is (an interrupted
		// apply got that far): nothing is lost by applying then.
		lost, err := t.Unexported(ctx, patches)
		if err != nil {
			return false, err
		}
		if len(lost) == 0 {
			state.Applied = head
		}
	}
	if head == "" || base == "" || head != state.Applied || len(dirty) > 0 {
		return false, nil
	}
	if err := t.Apply(ctx, base, patches, ApplyOptions{}); err != nil {
		return false, err
	}
	return true, nil
}
