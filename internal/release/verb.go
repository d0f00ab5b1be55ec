package release

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

// Run is the release verb on line c, whose work tree must hold the line's
// series applied: it makes the release (Make) in root's dist/, with the
// line's security record and the fork release changelog names, or with
// verify rebuilds it, compares the sums (Verify) and checks the artifacts
// (Check, in scratch/check), and says so to log (rendered by it when it
// is a hint.Renderer).
func Run(ctx context.Context, c worktree.Checkout, verify bool, root, changelog, scratch string, log io.Writer) error {
	if err := c.Tree.Require(ctx, worktree.Need{Verb: "release", Base: true}); err != nil {
		return err
	}
	why, err := c.Unapplied(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		return &worktree.RefusalError{
			What: hint.Sprintf("%s is not the series of %s applied on the pinned upstream: %s; a release is exactly that, and its RELEASE.md says so", hint.WorkTree, c.Line.Dir, why),
			Hint: hint.Sprintf("run %s to write your commits to patches/, or %s to make the work tree hold patches/ (`git -C %s checkout %s` first if HEAD is elsewhere); then release again. %s builds any HEAD, labelled as what it is",
				hint.Run("extract"), hint.Run("apply"), c.Tree.Dir, worktree.ForkBranch, hint.Run("build")),
		}
	}
	o, err := LineOptions(c, changelog)
	if err != nil {
		return err
	}
	o.Dist, o.Scratch, o.Log = filepath.Join(root, "dist"), scratch, log
	rec, err := vulns.LineRecord(root, vulns.StatusFile(c.Line.Baselines, c.Line.Name), o.Patches, nil, false)
	if err != nil {
		return err
	}
	if len(rec.Problems) > 0 {
		return fmt.Errorf("the line's security record is incomplete (RELEASE.md shows it):\n%s\nrun %s", strings.Join(rec.Problems, "\n"), "`make vulns`")
	}
	if len(rec.Statuses) > 0 {
		o.Security = vulns.RecordTable(rec.Statuses)
	}
	return write(ctx, o, verify, root)
}

// write makes the release of o, or with verify checks it; root is the
// repository, which the release's directory is named relative to.
func write(ctx context.Context, o Options, verify bool, root string) error {
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

// Build is the build verb with o on line c: it builds the line's work
// tree (or o.Tree) stamped with the pinned version and the fork release
// changelog names, checking the UI in uiDir with o.CheckUI (buildTree).
// A binary of a work tree that is not the line's series applied is
// labelled so (DevSuffix), with a note to log.
func Build(ctx context.Context, c worktree.Checkout, o build.Options, changelog, uiDir string, log io.Writer) error {
	if o.Tree == "" {
		if err := c.Tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
			return err
		}
	}
	p, err := c.Pin()
	if err != nil {
		return err
	}
	if o.Tree == "" && o.Metadata == "" {
		// Labelled as what it is: the fork release only when HEAD is
		// the line's series.
		why, err := c.Unapplied(ctx)
		if err != nil {
			return err
		}
		if why != "" {
			fork, err := build.ForkRelease(changelog, p.Version())
			if err != nil {
				return err
			}
			o.Metadata = fork + DevSuffix
			hint.Fprint(log, hint.Sprintf("note: %s is not the series of %s applied (%s): the binary is labelled %s+%s, not the fork's release; %s or %s makes it so",
				hint.WorkTree, c.Line.Dir, why, p.Version(), o.Metadata, hint.Run("extract"), hint.Run("apply")))
		}
	}
	return buildTree(ctx, o, c.Tree.Repo, p.Version(), changelog, uiDir, log)
}

// DevSuffix ends the version metadata of a binary built from a work tree
// that is not the line's series applied: 1.5.3+fork.1.dev.
const DevSuffix = ".dev"

// buildTree builds the nomad tree o names (default: repo's) stamped with
// upstream and the fork release changelog names (build.Job), and with
// o.CheckUI checks that the binary serves the web UI (CheckUI, in uiDir).
// It says so to log (rendered by it when it is a hint.Renderer).
func buildTree(ctx context.Context, o build.Options, repo *git.Repo, upstream, changelog, uiDir string, log io.Writer) error {
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
