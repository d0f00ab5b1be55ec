package rebase

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// A Session is the rebase of one maintained line as the verbs see it:
// the line it works on and that line's work tree (the selected one, or
// one a stopped rebase -new-line is making), and the files a completed
// rebase writes. The verbs rebase and drop -verify work through it.
type Session struct {
	Layout line.Layout
	worktree.Checkout
	// Making: Line is being made by a stopped rebase -new-line; it has a
	// work tree, but no files yet.
	Making bool
	// Changelog is CHANGELOG.md.
	Changelog string
	Log       io.Writer
	// Moved, if set, is told the new line Onto -new-line moves the
	// session to, before its rebase starts: an interruption then resumes
	// there.
	Moved func(worktree.Checkout)
}

// Resume moves the session to the line a rebase in progress works on and
// returns it: the line name names (empty: the default line), or a line a
// stopped rebase -new-line is making, which has a work tree but no files
// yet. An unknown line is the layout's error (line.ErrUnknown); a lookup
// of a line being made that was interrupted returns that line with the
// error.
func (s *Session) Resume(ctx context.Context, name string) (worktree.Checkout, error) {
	ln, err := s.Layout.Get(name)
	if err == nil {
		s.use(ln, false)
		return s.Checkout, nil
	}
	if !errors.Is(err, line.ErrUnknown) || name == "" {
		return worktree.Checkout{}, err
	}
	making, lerr := s.Layout.At(name)
	if lerr != nil {
		return worktree.Checkout{}, lerr
	}
	s.use(making, true)
	if !s.Rebaser().InProgress(ctx) {
		if ctx.Err() != nil {
			// An interrupted lookup is no answer.
			return s.Checkout, ctx.Err()
		}
		return worktree.Checkout{}, err
	}
	return s.Checkout, nil
}

// use makes ln, with a work tree writing where the session's does, the
// session's line.
func (s *Session) use(ln line.Line, making bool) {
	s.Checkout, s.Making = worktree.CheckoutOf(ln, s.Tree.Log), making
}

// txn is the directory the completing transaction stages in.
func (s *Session) txn() string { return filepath.Join(s.Layout.Root, line.PatchesDir) }

// Rebaser returns the rebaser of the line: for a rebase in place in
// progress, the one that moves the line to the rebase's target.
func (s *Session) Rebaser() *Rebaser {
	r := &Rebaser{Tree: s.Tree, Log: s.Log,
		Files: Files{Pin: s.Line.Pin, Patches: s.Line.Dir, Changelog: s.Changelog, Txn: s.txn()}}
	if s.Making {
		return r
	}
	if target, err := r.Target(context.Background()); err == nil {
		s.inPlace(r, target.Version())
	}
	return r
}

// inPlace points r's files at the line moved to version: its directory,
// pin and (for the default line) the default record, or (for another
// line) its work tree directory.
func (s *Session) inPlace(r *Rebaser, version string) {
	dst, err := s.Layout.At(version)
	if err != nil {
		return
	}
	r.Files.From = s.Line.Pin
	r.Files.FromDir = s.Line.Dir
	r.Files.Pin = dst.Pin
	r.Files.Patches = dst.Dir
	if s.Line.Default {
		r.Files.DefaultFile = filepath.Join(s.Layout.Root, line.PatchesDir, line.DefaultFile)
	} else {
		r.Files.WorkTreeFrom = filepath.Dir(s.Line.WorkTree)
		r.Files.WorkTreeTo = filepath.Dir(dst.WorkTree)
	}
}

// MoveOntoLineError is the refusal to move a line onto a version that is
// a line already.
type MoveOntoLineError struct{ Line, Version string }

func (e *MoveOntoLineError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *MoveOntoLineError) Render(r hint.Renderer) string {
	return hint.Sprintf("line %s exists already, so line %s cannot move onto it: work on line %s with -line, such as %s; "+
		"to move line %s past it, rebase onto a version no line has", e.Version, e.Line, e.Version, hint.Run("apply").OnLine(e.Version), e.Line).Render(r)
}

// Onto starts a rebase of the line onto version, or, with newLine, of a
// copy of it that becomes line version (the session's line then). It
// refuses with a *MoveOntoLineError, *LineExistsError, *NotNewerError or
// *WorkTreeLeftError.
func (s *Session) Onto(ctx context.Context, version string, newLine bool, nested map[string]string) (*Report, error) {
	patches, err := series.List(s.Line.Dir)
	if err != nil {
		return nil, err
	}
	targets := filepath.Join(s.Layout.Root, upstream.TargetsFile)
	if !newLine {
		names, err := s.Layout.Names()
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if n == version {
				return nil, &MoveOntoLineError{Line: s.Line.Name, Version: version}
			}
		}
		r := s.Rebaser()
		s.inPlace(r, version)
		return r.Onto(ctx, version, targets, nested, patches)
	}
	nl := NewLine{Layout: s.Layout, From: s.Line, Tree: s.Tree, Log: s.Log, Changelog: s.Changelog, Txn: s.txn()}
	m, err := nl.Prepare(ctx, version)
	if err != nil {
		return nil, err
	}
	s.use(m.Line, true)
	if s.Moved != nil {
		s.Moved(s.Checkout)
	}
	return m.Start(ctx, targets, nested, patches)
}

// Patches returns the series a rebase in progress started from: the
// line's own patches, or for a line being made, the patches of the line
// it is made from.
func (s *Session) Patches(ctx context.Context) ([]series.Patch, error) {
	dir := s.Line.Dir
	if s.Making {
		if from, err := s.Rebaser().From(ctx); err == nil {
			if ln, err := s.Layout.Get(from); err == nil {
				dir = ln.Dir
			}
		}
	}
	return series.List(dir)
}

// Continue goes on with the rebase in progress.
func (s *Session) Continue(ctx context.Context) (*Report, error) {
	patches, err := s.Patches(ctx)
	if err != nil {
		return nil, err
	}
	return s.Rebaser().Continue(ctx, patches)
}

// Abort undoes the rebase in progress; a line being made is not made,
// and its work tree is removed.
func (s *Session) Abort(ctx context.Context) error {
	if err := s.Rebaser().Abort(ctx); err != nil {
		return err
	}
	if s.Making {
		// The new line's work tree is a copy made for the rebase.
		if err := os.RemoveAll(filepath.Dir(s.Line.WorkTree)); err != nil {
			return fmt.Errorf("removing the new line's work tree: %w", err)
		}
	}
	return nil
}

// DropProven drops the patch name the stopped rebase conflicts at, once
// the prover made for the rebase's target (its pin and line) shows that
// the target carries it, and goes on with the rebase.
func (s *Session) DropProven(ctx context.Context, name, pr string, prover func(*pin.Pin, line.Line) Prover) (*Report, error) {
	r := s.Rebaser()
	target, err := r.Target(ctx)
	if err != nil {
		if errors.Is(err, ErrNoRebase) {
			return nil, hint.Errorf("drop -verify drops the patch a rebase stopped at, and no rebase of line %s is in progress: start one with %s",
				s.Line.Name, hint.Run("rebase", "-onto", "<version>"))
		}
		return nil, err
	}
	patches, err := s.Patches(ctx)
	if err != nil {
		return nil, err
	}
	targetLine, err := s.Layout.At(target.Version())
	if err != nil {
		return nil, err
	}
	return r.DropProven(ctx, name, pr, prover(target, targetLine), patches)
}
