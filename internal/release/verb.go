package release

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// Verb is the release verb: it makes the release of o (Make), or with
// verify rebuilds it, compares the sums (Verify) and checks the artifacts
// (Check, in o.Scratch/check), and says so to o.Log (rendered by it when
// it is a hint.Renderer). root is the repository, which the release's
// directory is named relative to.
func Verb(ctx context.Context, o Options, verify bool, root string) error {
	rel, _ := filepath.Rel(root, o.Dir())
	if !verify {
		r, err := Make(ctx, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Log, "\nrelease %s in %s/ (toolchain %s):\n%s", r.Version, rel, build.Toolchain, r.Sums)
		return hint.Fprint(o.Log, hint.Sprintf("%s rebuilds it and checks it; docs/release.md says how to install it", hint.Run("release", "-verify")))
	}
	sums, err := Verify(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "\nrelease -verify: the rebuild of %s has the same SHA256SUMS:\n%s", rel, sums)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	results, err := Check(ctx, o, self, filepath.Join(o.Scratch, "check"), o.Log)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Log)
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(o.Log, "skipped  %s: %s\n", r.Name, r.Skipped)
			continue
		}
		fmt.Fprintf(o.Log, "ok       %s\n", r.Name)
	}
	return nil
}

// Build is the build verb with o: it builds the nomad tree o names
// (default: repo's) stamped with upstream and the fork release changelog
// names (build.Job), and with o.CheckUI checks that the binary serves the
// web UI (CheckUI, in uiDir). It says so to log (rendered by it when it
// is a hint.Renderer).
func Build(ctx context.Context, o build.Options, repo *git.Repo, upstream, changelog, uiDir string, log io.Writer) error {
	if o.Tree != "" {
		abs, err := filepath.Abs(o.Tree)
		if err != nil {
			return err
		}
		repo = &git.Repo{Dir: abs}
	}
	profile := build.Release
	if o.Test {
		profile = build.Test
	}
	job := build.Job{Repo: repo, Out: o.Out, Upstream: upstream, Metadata: o.Metadata, Changelog: changelog, Profile: profile, Log: log}
	if err := job.Run(ctx); err != nil {
		return err
	}
	hint.Fprint(log, hint.Sprintf("built %s (%s); %s prints the version (run Nomad code only in the sandbox)", o.Out, profile.ID(), hint.Run("sandbox", "--", o.Out, "version")))
	if !o.CheckUI {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(o.Out)
	if err != nil {
		return err
	}
	err = progress.Step(log, "checking that "+o.Out+" serves the web UI at /ui/ (dev agent in the sandbox)", func() error {
		return CheckUI(ctx, self, abs, uiDir)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "ui check: %s serves the web UI at /ui/\n", o.Out)
	return nil
}
