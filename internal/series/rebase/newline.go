package rebase

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// NotNewerError is the refusal to make a line from a newer or equal one.
type NotNewerError struct{ Version, From string }

func (e *NotNewerError) Error() string {
	return fmt.Sprintf("%s is not newer than line %s", e.Version, e.From)
}

// WorkTreeLeftError is the refusal to make a line whose work tree exists
// though the line does not: a rebase making it stopped, or one failed
// and left it behind.
type WorkTreeLeftError struct{ Line, WorkTree string }

func (e *WorkTreeLeftError) Error() string {
	return fmt.Sprintf("%s exists but line %s does not", e.WorkTree, e.Line)
}

// NewLine makes a new line from an existing one: a rebase of a copy of
// the line's work tree onto a newer upstream, which leaves the line it
// is made from as it is.
type NewLine struct {
	Layout line.Layout
	// From is the line it is made from, and Tree its work tree.
	From line.Line
	Tree *worktree.Tree
	// Changelog is CHANGELOG.md; Txn the directory of the transaction
	// that switches the line's files (patches/).
	Changelog, Txn string
	Log            io.Writer
}

// Making is a new line whose work tree has been copied, ready to start
// its rebase with Start.
type Making struct {
	// Line is the line being made.
	Line    line.Line
	version string
	r       *Rebaser
}

// Prepare checks that line version can be made from n.From and copies
// n.From's work tree to the new line's place. It returns a
// *LineExistsError, *NotNewerError or *WorkTreeLeftError when it cannot.
func (n NewLine) Prepare(ctx context.Context, version string) (*Making, error) {
	names, err := n.Layout.Names()
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if name == version {
			return nil, &LineExistsError{Line: version, Dir: filepath.Join(n.Layout.Root, line.PatchesDir, version)}
		}
	}
	if semver.Compare(version, n.From.Name) <= 0 {
		return nil, &NotNewerError{Version: version, From: n.From.Name}
	}
	target, err := n.Layout.At(version)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(target.WorkTree); err == nil {
		return nil, &WorkTreeLeftError{Line: version, WorkTree: target.WorkTree}
	}
	copied, err := n.Tree.Copy(ctx, target.WorkTree)
	if err != nil {
		return nil, err
	}
	r := &Rebaser{Tree: copied, Log: n.Log,
		Files: Files{From: n.From.Pin, Pin: target.Pin, Patches: target.Dir, Changelog: n.Changelog, Txn: n.Txn}}
	return &Making{Line: target, version: version, r: r}, nil
}

// Start rebases the copied series onto m.Line's version (see
// Rebaser.Onto). When the rebase did not start, it removes the copy, so
// no half-made line is left behind.
func (m *Making) Start(ctx context.Context, targets string, nested map[string]string, patches []series.Patch) (*Report, error) {
	rep, err := m.r.Onto(ctx, m.version, targets, nested, patches)
	if err != nil && !m.r.InProgress(ctx) {
		os.RemoveAll(filepath.Dir(m.Line.WorkTree))
	}
	return rep, err
}
