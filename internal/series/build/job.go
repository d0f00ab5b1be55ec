package build

import (
	"context"
	"fmt"
	"io"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
)

// A Job builds the nomad tree of Repo into Out, stamped with the pinned
// Upstream version, the version metadata and the tree's revision, for the
// host.
type Job struct {
	Repo     *git.Repo
	Out      string
	Upstream string
	// Metadata is the version metadata; "": the fork release Changelog
	// names for Upstream (ForkRelease).
	Metadata, Changelog string
	Profile             Profile
	Log                 io.Writer
}

// Run builds the binary, as a progress step.
func (j Job) Run(ctx context.Context) error {
	meta := j.Metadata
	if meta == "" {
		var err error
		if meta, err = ForkRelease(j.Changelog, j.Upstream); err != nil {
			return err
		}
	}
	stamp, err := StampOf(ctx, j.Repo, meta)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("building %s (Nomad %s+%s, revision %s, %s build)", j.Out, j.Upstream, meta, stamp.Revision, j.Profile.Name)
	return progress.Step(j.Log, what, func() error {
		if err := j.Profile.Build(ctx, j.Repo.Dir, j.Out, stamp, Host()); err != nil {
			return err
		}
		return CheckBinaryGODEBUG(j.Out)
	})
}
