package rebase

import (
	"context"
	"fmt"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Drop records in the patch named name of the series in dir that upstream
// version applied carries it, and pr (if not empty) the URL of the pull
// request that brought it there. applied must be newer than the pin and
// served by the module proxy: a patch the pinned upstream carried would not
// apply at all, and a version that does not exist is never reached.
func Drop(ctx context.Context, cur *pin.Pin, dir, name, applied, pr string) (*series.Patch, error) {
	if semver.Compare(applied, cur.Version()) <= 0 {
		return nil, fmt.Errorf("-applied-upstream %s is not newer than the pinned %s: a patch the pinned upstream carried would not apply", applied, cur.Version())
	}
	if _, err := upstream.Download(ctx, pin.Module{Path: cur.Module.Path, Version: applied}); err != nil {
		return nil, fmt.Errorf("-applied-upstream %s: %w", applied, err)
	}
	patches, err := series.List(dir)
	if err != nil {
		return nil, err
	}
	patch, err := series.Find(patches, name)
	if err != nil {
		return nil, err
	}
	if err := series.MarkApplied(patch, applied, pr); err != nil {
		return nil, err
	}
	return patch, nil
}

// Dropped is what DropInTree did.
type Dropped struct {
	Patch *series.Patch
	// Applied: the edited patch was applied to the work tree, so the next
	// extract keeps it. Otherwise, when Tree is set, the work tree does
	// not hold the series as last applied: apply must run before the
	// next extract (which refuses to overwrite the edit until then).
	Applied, Tree bool
	// Version is the upstream version that carries the patch.
	Version string
}

// DropInTree is Drop for the line whose series is in dir and work tree
// t: it refuses while an apply or rebase is stopped there or while t
// holds commits that dir does not (the edit and the commits could then
// each be kept only by discarding the other), and applies the edited
// patch to t when t holds the series as last applied or extracted.
func DropInTree(ctx context.Context, t *worktree.Tree, cur *pin.Pin, dir, name, applied, pr string) (*Dropped, error) {
	if err := t.Require(ctx, worktree.Need{Verb: "drop", NoOp: true}); err != nil {
		return nil, err
	}
	hasTree, err := t.HasRepo(ctx)
	if err != nil {
		return nil, err
	}
	if hasTree {
		// What Reapply would refuse is refused before the edit.
		if err := t.CanReapply(ctx, "drop"); err != nil {
			return nil, err
		}
		patches, err := series.List(dir)
		if err != nil {
			return nil, err
		}
		lost, err := t.Unexported(ctx, patches)
		if err != nil {
			return nil, err
		}
		if len(lost) > 0 {
			return nil, &worktree.RefusalError{
				What:  hint.Sprintf("%s has commits that patches/ does not hold yet:", hint.WorkTree),
				Items: lost,
				Hint:  hint.Sprintf("run %s first (or %s to discard them), then drop again", hint.Run("extract"), hint.Run("apply", "-force")),
			}
		}
	}
	patch, err := Drop(ctx, cur, dir, name, applied, pr)
	if err != nil {
		return nil, err
	}
	d := &Dropped{Patch: patch, Tree: hasTree, Version: applied}
	if !hasTree {
		return d, nil
	}
	patches, err := series.List(dir)
	if err != nil {
		return d, err
	}
	d.Applied, err = t.Reapply(ctx, patches)
	return d, err
}
