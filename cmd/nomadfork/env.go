package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// env is the repository layout and the streams of one invocation.
type env struct {
	root     string // the repository's top directory
	pinFile  string // upstream.json
	patches  string // patches/
	workTree string // nomad/
	bin      string // bin/
	out      string // out/: scratch space, git-ignored
	baseline string // baseline/
	sim      string // sim/: the external consumer module
	log      string // CHANGELOG.md
	tree     *worktree.Tree

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
		root:     root,
		pinFile:  filepath.Join(root, pin.DefaultFile),
		patches:  filepath.Join(root, "patches"),
		workTree: filepath.Join(root, "nomad"),
		bin:      filepath.Join(root, "bin"),
		out:      filepath.Join(root, "out"),
		baseline: filepath.Join(root, "baseline"),
		sim:      filepath.Join(root, "sim"),
		log:      filepath.Join(root, "CHANGELOG.md"),
		stdout:   stdout,
		stderr:   stderr,
		tree:     &worktree.Tree{Dir: filepath.Join(root, "nomad"), Repo: &git.Repo{Dir: filepath.Join(root, "nomad")}, Log: stdout},
	}
	if _, err := os.Stat(e.pinFile); err != nil {
		return e, fmt.Errorf("%s not found: run nomadfork in the repository's top directory or pass -C", pin.DefaultFile)
	}
	return e, nil
}

func (e *env) loadPin() (*pin.Pin, error) { return pin.Load(e.pinFile) }

// fetchBase imports the pinned upstream into the work tree's repository.
func (e *env) fetchBase(ctx context.Context, t *worktree.Tree) (*pin.Pin, string, error) {
	p, err := e.loadPin()
	if err != nil {
		return nil, "", err
	}
	base, err := t.Fetch(ctx, p)
	return p, base, err
}

// seriesAndBase returns the series and the pinned upstream commit,
// fetching and importing it if needed: what check, apply and export start
// from. An empty or missing series is refused unless allowEmpty is set.
func (e *env) seriesAndBase(ctx context.Context, t *worktree.Tree, allowEmpty bool) ([]series.Patch, *pin.Pin, string, error) {
	patches, err := series.Require(e.patches, allowEmpty)
	if err != nil {
		return nil, nil, "", err
	}
	p, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return nil, nil, "", err
	}
	return patches, p, base, nil
}

// requireWorkTree returns the work tree, failing unless apply has made it.
func (e *env) requireWorkTree(ctx context.Context) (*worktree.Tree, error) {
	return e.tree, e.tree.Require(ctx, worktree.Need{Base: true})
}
