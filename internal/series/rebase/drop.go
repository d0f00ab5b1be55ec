package rebase

import (
	"context"
	"fmt"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
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
