// Package workspace is the repository a command of the tool works in: its
// layout, and the maintained line the command selected (-line, else the
// default line) with that line's work tree, a worktree.Checkout that the
// command passes down whole to the engines; and what the engines are
// given beside it (a rebase session, the harness's options, an
// experiment's start). It runs no verb and writes nothing itself: Log is
// the output the engines write to, which the command makes (it renders
// their hints for the line).
package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// A Workspace is the repository and the line one command works on.
type Workspace struct {
	Root      string // the repository's top directory
	Bin       string // bin/
	Out       string // out/: scratch space, git-ignored
	Sim       string // sim/: the external consumer module
	Changelog string // CHANGELOG.md
	Layout    line.Layout

	// LineName is what -line said (empty: the default line).
	LineName string
	// Checkout is the selected line (Select) and its work tree: Line,
	// Tree.
	worktree.Checkout

	// Stdout is the command's output, Log the same output as the engines
	// write to it.
	Stdout, Log io.Writer

	// selected is the line last selected, for Selected.
	selected atomic.Pointer[line.Line]
}

// New returns the workspace of the repository at dir (empty: the current
// directory), with the default line's work tree until a line is
// selected. Layout.IsRepo says whether dir is the repository's top.
func New(dir string, stdout, log io.Writer) (*Workspace, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	w := &Workspace{
		Root:      root,
		Bin:       filepath.Join(root, "bin"),
		Out:       filepath.Join(root, "out"),
		Sim:       filepath.Join(root, "sim"),
		Changelog: filepath.Join(root, "CHANGELOG.md"),
		Layout:    line.Layout{Root: root},
		Stdout:    stdout,
		Log:       log,
	}
	w.Checkout = w.CheckoutOf(line.Line{WorkTree: filepath.Join(root, "nomad")})
	return w, nil
}

// CheckoutOf returns the checkout of ln, its work tree writing to Log.
func (w *Workspace) CheckoutOf(ln line.Line) worktree.Checkout { return worktree.CheckoutOf(ln, w.Log) }

// Select makes c the workspace's checkout.
func (w *Workspace) Select(c worktree.Checkout) {
	w.Checkout = c
	ln := c.Line
	w.selected.Store(&ln)
}

// Selected returns the line last selected; ok is false before any. Unlike
// Line, it may be read while the command runs, from another goroutine.
func (w *Workspace) Selected() (ln line.Line, ok bool) {
	if p := w.selected.Load(); p != nil {
		return *p, true
	}
	return line.Line{}, false
}

// UseLine selects the line LineName names (the default line if none): an
// unknown line is a usage error naming the lines there are.
func (w *Workspace) UseLine() error {
	ln, err := w.Layout.Get(w.LineName)
	if errors.Is(err, line.ErrUnknown) {
		return cli.UsageError{Err: err}
	}
	if err != nil {
		return err
	}
	w.Select(w.CheckoutOf(ln))
	return nil
}

// Session is a rebase session of the selected line; the line a rebase
// -new-line moves it to becomes the selected one.
func (w *Workspace) Session() *rebase.Session {
	return &rebase.Session{Layout: w.Layout, Checkout: w.Checkout, Changelog: w.Changelog, Log: w.Stdout, Moved: w.Select}
}

// ResumeSession selects the line of a rebase in progress (see
// rebase.Session.Resume) and returns its session; an unknown line is a
// usage error.
func (w *Workspace) ResumeSession(ctx context.Context) (*rebase.Session, error) {
	s := w.Session()
	c, err := s.Resume(ctx, w.LineName)
	if c.Tree != nil {
		w.Select(c)
	}
	if errors.Is(err, line.ErrUnknown) {
		return nil, cli.UsageError{Err: err}
	}
	return s, err
}

// Harness returns the harness's options for the selected line pinned by
// p, with scratch space in out/<scratch>.
func (w *Workspace) Harness(p *pin.Pin, scratch string, verbose bool) harness.Options {
	o := harness.LineOptions(w.Checkout, p)
	o.Scratch, o.Sim, o.SimMod = filepath.Join(w.Out, scratch), w.Sim, filepath.Join(w.Out, "sim", p.Version())
	o.Verbose, o.Log = verbose, w.Stdout
	return o
}

// Experiment returns what an experiment verb starts from on the selected
// line: given names the flags given, command is the command line its
// reports name.
func (w *Workspace) Experiment(given map[string]bool, command string, stderr io.Writer) experiment.Start {
	return experiment.Start{Given: given, Root: w.Root, Out: w.Out, Sim: w.Sim, Changelog: w.Changelog, Checkout: w.Checkout,
		Command: command, Stdout: w.Stdout, Stderr: stderr}
}

// Prover is the prover of drop -verify for a rebase onto target, the
// pin of line targetLine: the patch's own tests in the harness, against
// the target's plain baseline.
func (w *Workspace) Prover(target *pin.Pin, targetLine line.Line) rebase.Prover {
	o := w.Harness(target, "drop-verify", false)
	o.Plain = harness.PlainBaseline(targetLine.Baselines, target.Version())
	return func(ctx context.Context, base string, p series.Patch) (string, error) {
		return harness.ProveUpstream(ctx, o, base, p)
	}
}
