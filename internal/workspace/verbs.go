package workspace

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/status"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

// The verbs' runs on the selected line, where they join engines (apply:
// the work tree and a stopped rebase; check: the series' checks and the
// harness; build: the binary and the UI check) or give an engine the
// line's files; what they did is a Message or written to Log.

// Apply makes the line's work tree hold the pinned upstream plus the
// series (worktree.Tree.Apply); o.Force also aborts a stopped rebase, and
// o.Abort ends a stopped apply (saying nothing more).
func (w *Workspace) Apply(ctx context.Context, o worktree.ApplyOptions) (hint.Message, error) {
	t := w.Tree
	if o.Abort {
		return hint.Message{}, t.Apply(ctx, "", nil, o)
	}
	if o.Force {
		if err := w.Session().Rebaser().AbortStopped(ctx); err != nil {
			return hint.Message{}, err
		}
	}
	patches, p, base, err := w.SeriesAndBase(ctx, o.AllowEmpty)
	if err != nil {
		return hint.Message{}, err
	}
	if err := t.Apply(ctx, base, patches, o); err != nil {
		return hint.Message{}, err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return hint.Message{}, err
	}
	return hint.Sprintf("%s is upstream %s plus %d patch(es), HEAD %s", hint.WorkTree, p.Version(), len(patches), head), nil
}

// Check checks the line's series (check.Series) and with v.Tests runs
// each patch's own tests (harness.OwnTests).
func (w *Workspace) Check(ctx context.Context, v check.Verb) (hint.Message, error) {
	t := w.Tree
	patches, p, base, err := w.SeriesAndBase(ctx, v.AllowEmpty)
	if err != nil {
		return hint.Message{}, err
	}
	err = check.Series(ctx, patches, check.Options{Repo: t.Repo, Base: base, Scratch: filepath.Join(w.Out, "check"),
		Scope: v.Scope(), Pinned: p.Version(), Log: w.Stdout})
	if err == nil && v.Tests {
		err = harness.OwnTests(ctx, w.Harness(p, "check-tests", v.Verbose), base, patches)
	}
	if err != nil {
		return hint.Message{}, err
	}
	return hint.Sprintf("check: %d patch(es) ok", len(patches)), nil
}

// Build builds the line's work tree (or o.Tree) stamped with the pinned
// version and the fork release (release.Build), checking the UI in
// out/ui-check with o.CheckUI.
func (w *Workspace) Build(ctx context.Context, o build.Options) error {
	if o.Tree == "" {
		if err := w.Tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
			return err
		}
	}
	p, err := w.Pin()
	if err != nil {
		return err
	}
	if o.Tree == "" && o.Metadata == "" {
		// Labelled as what it is: the fork release only when HEAD is
		// the line's series.
		why, err := w.Unapplied(ctx)
		if err != nil {
			return err
		}
		if why != "" {
			fork, err := build.ForkRelease(w.Changelog, p.Version())
			if err != nil {
				return err
			}
			o.Metadata = fork + DevSuffix
			hint.Fprint(w.Log, hint.Sprintf("note: %s is not the series of %s applied (%s): the binary is labelled %s+%s, not the fork's release; %s or %s makes it so",
				hint.WorkTree, w.Line.Dir, why, p.Version(), o.Metadata, hint.Run("extract"), hint.Run("apply")))
		}
	}
	return release.Build(ctx, o, w.Tree.Repo, p.Version(), w.Changelog, filepath.Join(w.Out, "ui-check"), w.Log)
}

// DevSuffix ends the version metadata of a binary built from a work tree
// that is not the line's series applied: 1.5.3+fork.1.dev.
const DevSuffix = ".dev"

// Status tries the selected line's series (status.Run).
func (w *Workspace) Status(ctx context.Context, o status.Options, generated string) error {
	o.LineGiven = w.LineName != ""
	return status.Run(ctx, o, w.Checkout, w.Layout, filepath.Join(w.Out, "status"), w.Stdout, generated)
}

// Release makes the line's release in dist/ or with verify checks it
// (release.Verb), on the applied work tree.
func (w *Workspace) Release(ctx context.Context, verify bool) error {
	if err := w.Tree.Require(ctx, worktree.Need{Verb: "release", Base: true}); err != nil {
		return err
	}
	why, err := w.Unapplied(ctx)
	if err != nil {
		return err
	}
	if why != "" {
		return &worktree.RefusalError{
			What: hint.Sprintf("%s is not the series of %s applied on the pinned upstream: %s; a release is exactly that, and its RELEASE.md says so", hint.WorkTree, w.Line.Dir, why),
			Hint: hint.Sprintf("run %s to write your commits to patches/, or %s to make the work tree hold patches/ (`git -C %s checkout %s` first if HEAD is elsewhere); then release again. %s builds any HEAD, labelled as what it is",
				hint.Run("extract"), hint.Run("apply"), w.Tree.Dir, worktree.ForkBranch, hint.Run("build")),
		}
	}
	o, err := release.LineOptions(w.Checkout, w.Changelog)
	if err != nil {
		return err
	}
	o.Dist, o.Scratch, o.Log = filepath.Join(w.Root, "dist"), filepath.Join(w.Out, "release"), w.Log
	rec, err := vulns.LineRecord(w.Root, vulns.StatusFile(w.Line.Baselines, w.Line.Name), o.Patches, nil, false)
	if err != nil {
		return err
	}
	if len(rec.Problems) > 0 {
		return fmt.Errorf("the line's security record is incomplete (RELEASE.md shows it):\n%s\nrun %s", strings.Join(rec.Problems, "\n"), "`make vulns`")
	}
	if len(rec.Statuses) > 0 {
		o.Security = vulns.RecordTable(rec.Statuses)
	}
	return release.Verb(ctx, o, verify, w.Root)
}

// Vulns scans the line's work tree, or reads o.From, and gates the
// findings (vulns.Job); docCommand names the command that writes the
// line's document, stderr gets the gate's failures.
func (w *Workspace) Vulns(ctx context.Context, o vulns.Options, docCommand string, stderr io.Writer) error {
	p, err := w.Pin()
	if err != nil {
		return err
	}
	if o.From == "" {
		if err := w.Tree.Require(ctx, worktree.Need{Verb: "vulns", Base: true}); err != nil {
			return err
		}
	}
	return vulns.Job{Options: o, Root: w.Root, Out: w.Out, Line: w.Line, Pin: p, DocCommand: docCommand, Log: w.Log, Stderr: stderr}.Run(ctx)
}
