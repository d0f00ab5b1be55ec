package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// env is the repository layout and the streams of one invocation.
type env struct {
	root   string // the repository's top directory
	bin    string // bin/
	out    string // out/: scratch space, git-ignored
	sim    string // sim/: the external consumer module
	log    string // CHANGELOG.md
	layout line.Layout

	// The selected line (-line, else the default line), set by useLine,
	// and its work tree.
	lineName string // what -line said; empty: the default line
	line     line.Line
	tree     *worktree.Tree
	// rebase is the rebase session of the line, once a verb used it.
	rebase *rebase.Session
	// rebasing names the line a rebase works on, for the resume command.
	rebasing string

	stdout, stderr io.Writer
}

func newEnv(dir string, stdout, stderr io.Writer) (*env, error) {
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
	e := &env{
		root:   root,
		bin:    filepath.Join(root, "bin"),
		out:    filepath.Join(root, "out"),
		sim:    filepath.Join(root, "sim"),
		log:    filepath.Join(root, "CHANGELOG.md"),
		layout: line.Layout{Root: root},
		stdout: stdout,
		stderr: stderr,
	}
	// Until a command selects its line, the default line's work tree.
	e.setLine(line.Line{WorkTree: filepath.Join(root, "nomad")})
	if !e.layout.IsRepo() {
		return e, fmt.Errorf("%s not found: run nomadfork in the repository's top directory or pass -C",
			filepath.Join(line.PatchesDir, line.DefaultFile))
	}
	return e, nil
}

// setLine selects ln.
func (e *env) setLine(ln line.Line) {
	e.line = ln
	e.tree = e.treeOf(ln)
}

// treeOf returns the work tree of ln, writing to stdout.
func (e *env) treeOf(ln line.Line) *worktree.Tree {
	return &worktree.Tree{Dir: ln.WorkTree, Repo: &git.Repo{Dir: ln.WorkTree}, Log: adviceOut{e.stdout, advice{e}}}
}

// adviceOut is an output the internal packages write their advice
// to (hint.Fprint): it renders the advice for the selected line.
type adviceOut struct {
	io.Writer
	advice
}

// useLine selects the line -line named (the default line if none): an
// unknown line is a usage error naming the lines there are.
func (e *env) useLine() error {
	ln, err := e.layout.Get(e.lineName)
	if errors.Is(err, line.ErrUnknown) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	e.setLine(ln)
	return nil
}

// relWorkTree is the line's work tree relative to the repository, with a
// trailing slash: nomad/ or lines/<line>/nomad/.
func (e *env) relWorkTree() string {
	rel, err := filepath.Rel(e.root, e.line.WorkTree)
	if err != nil {
		return e.line.WorkTree + "/"
	}
	return rel + "/"
}

// lineArg is " -line <name>" when a line other than the default one was
// selected, for the commands the tool tells the user to run next.
func (e *env) lineArg() string {
	if e.lineName == "" || e.line.Default {
		return ""
	}
	return " -line " + e.line.Name
}

func (e *env) loadPin() (*pin.Pin, error) { return pin.Load(e.line.Pin) }
