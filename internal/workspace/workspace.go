// Package workspace is the repository a command of the tool works in: its
// layout, the maintained line the command selected (-line, else the
// default line) and that line's work tree, and what the engines are given
// of them (the rebase session, the harness's options, an experiment's
// start). It writes nothing itself: Log is the output the engines write
// to, which the command makes (it renders their advice for the line).
package workspace

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
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

	// LineName is what -line said (empty: the default line); Line is the
	// selected line (UseLine) and Tree its work tree.
	LineName string
	Line     line.Line
	Tree     *worktree.Tree
	// Rebasing names the line a rebase works on, for the resume step.
	Rebasing string

	// Stdout is the command's output, Log the same output as the engines
	// write to it.
	Stdout, Log io.Writer

	session *rebase.Session
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
	w.Select(line.Line{WorkTree: filepath.Join(root, "nomad")})
	return w, nil
}

// Select selects ln.
func (w *Workspace) Select(ln line.Line) {
	w.Line = ln
	w.Tree = w.TreeOf(ln)
}

// TreeOf returns the work tree of ln, writing to Log.
func (w *Workspace) TreeOf(ln line.Line) *worktree.Tree {
	return &worktree.Tree{Dir: ln.WorkTree, Repo: &git.Repo{Dir: ln.WorkTree}, Log: w.Log}
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
	w.Select(ln)
	return nil
}

// Session is the rebase session of the selected line; a line it selects
// (one being made) becomes the workspace's line.
func (w *Workspace) Session() *rebase.Session {
	if w.session == nil {
		w.session = &rebase.Session{Layout: w.Layout, Line: w.Line, Tree: w.Tree, Changelog: w.Changelog, Log: w.Stdout,
			NewTree: func(ln line.Line) *worktree.Tree {
				w.Select(ln)
				w.Rebasing = ln.Name
				return w.Tree
			}}
	}
	return w.session
}

// UseRebasingLine selects the line of a rebase in progress (see
// rebase.Session.Resume); an unknown line is a usage error.
func (w *Workspace) UseRebasingLine(ctx context.Context) error {
	err := w.Session().Resume(ctx, w.LineName)
	if errors.Is(err, line.ErrUnknown) {
		return cli.UsageError{Err: err}
	}
	return err
}

// Pin loads the selected line's pin.
func (w *Workspace) Pin() (*pin.Pin, error) { return pin.Load(w.Line.Pin) }

// Harness returns the harness's options for the selected line pinned by
// p, with scratch space in out/<scratch>.
func (w *Workspace) Harness(p *pin.Pin, scratch string, verbose bool) harness.Options {
	return harness.LineOptions(w.Tree, p, w.Line.Dir, w.Line.Baselines, w.Sim, w.Out, scratch, verbose, w.Stdout)
}

// Experiment returns what an experiment verb starts from on the selected
// line: given names the flags given, command is the command line its
// reports name.
func (w *Workspace) Experiment(given map[string]bool, command string, stderr io.Writer) experiment.Start {
	return experiment.Start{Given: given, Root: w.Root, Out: w.Out, Sim: w.Sim, Changelog: w.Changelog, PinFile: w.Line.Pin, Tree: w.Tree,
		Command: command, Stdout: w.Stdout, Stderr: stderr}
}

// SelectFor selects the line the command line verb args works on: the
// one -line names, for rebase the line of the rebase in progress (-onto v
// -new-line: line v).
func (w *Workspace) SelectFor(ctx context.Context, verb string, args []string) error {
	v := cli.FlagValues(args, []string{"line", "onto"}, []string{"new-line"})
	w.LineName = v["line"]
	if verb != "rebase" {
		return w.UseLine()
	}
	if v["new-line"] != "" && v["onto"] != "" {
		w.LineName = v["onto"]
	}
	if err := w.UseRebasingLine(ctx); err != nil {
		return err
	}
	w.Rebasing = w.Line.Name
	return nil
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
