package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
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
	}
	if _, err := os.Stat(e.pinFile); err != nil {
		return e, fmt.Errorf("%s not found: run nomadfork in the repository's top directory or pass -C", pin.DefaultFile)
	}
	return e, nil
}

func (e *env) loadPin() (*pin.Pin, error) { return pin.Load(e.pinFile) }

func (e *env) tree() (*worktree.Tree, error) { return worktree.New(e.workTree, e.stdout) }

// baselineFile is the committed list of tests that fail on unpatched
// upstream in the sandbox.
func (e *env) baselineFile(p *pin.Pin) string {
	return filepath.Join(e.baseline, "client-"+p.Version()+".tsv")
}

// fetchBase downloads and verifies the pinned modules, makes sure the work
// tree's repository exists and imports the upstream commit into it. It
// does not touch the work tree's files or branches.
func (e *env) fetchBase(ctx context.Context, t *worktree.Tree) (*pin.Pin, string, error) {
	p, err := e.loadPin()
	if err != nil {
		return nil, "", err
	}
	mods, err := upstream.Fetch(ctx, p, e.stdout)
	if err != nil {
		return nil, "", err
	}
	if err := upstream.CheckReplacements(mods, pin.DefaultFile); err != nil {
		return nil, "", err
	}
	if err := t.Init(ctx); err != nil {
		return nil, "", err
	}
	var base string
	err = progress.Step(e.stdout, fmt.Sprintf("importing upstream %s into %s", p.Version(), t.Dir), func() error {
		base, err = t.ImportBase(ctx, mods)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return p, base, nil
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
	t, err := e.tree()
	if err != nil {
		return nil, err
	}
	return t, t.Require(ctx, worktree.Need{Base: true})
}
