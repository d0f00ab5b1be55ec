package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

func (e *env) listPatches() ([]series.Patch, error) { return series.List(e.patches) }

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
	if err := checkReplacements(mods); err != nil {
		return nil, "", err
	}
	if err := t.Init(ctx); err != nil {
		return nil, "", err
	}
	base, err := t.ImportBase(ctx, mods)
	if err != nil {
		return nil, "", err
	}
	return p, base, nil
}

// checkReplacements makes sure every local-path replace directive of the
// main module's go.mod points at a directory the module zip or a nested
// module of the pin provides; otherwise the tree could not build.
func checkReplacements(mods []*upstream.Module) error {
	main := mods[0]
	data, err := os.ReadFile(filepath.Join(main.Source, "go.mod"))
	if err != nil {
		return fmt.Errorf("reading %s go.mod: %w", main.Module, err)
	}
	for _, target := range localReplacements(string(data)) {
		dir := filepath.Clean(strings.TrimPrefix(target.dir, "./"))
		if _, err := os.Stat(filepath.Join(main.Source, dir)); err == nil {
			continue
		}
		found := false
		for _, m := range mods[1:] {
			if filepath.Clean(m.Dir) == dir {
				found = true
			}
		}
		if !found {
			return fmt.Errorf("%s's go.mod replaces %s => %s, but its module zip has no %s/ and the pin has no nested module for it; "+
				"add {\"path\": %q, \"version\": <pseudo-version of the tag's commit>, \"sum\": ..., \"dir\": %q} to \"nested\" in %s",
				main.Module, target.module, target.dir, dir, target.module, dir, pin.DefaultFile)
		}
	}
	return nil
}

type replacement struct{ module, dir string }

// localReplacements returns the replace directives with a local path target.
func localReplacements(gomod string) []replacement {
	var out []replacement
	inBlock := false
	for _, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		switch {
		case line == "replace (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "replace "):
			line = strings.TrimPrefix(line, "replace ")
		case !inBlock:
			continue
		}
		left, right, ok := strings.Cut(line, "=>")
		if !ok {
			continue
		}
		f := strings.Fields(right)
		if len(f) == 1 && (strings.HasPrefix(f[0], "./") || strings.HasPrefix(f[0], "../")) {
			lf := strings.Fields(left)
			if len(lf) > 0 {
				out = append(out, replacement{lf[0], f[0]})
			}
		}
	}
	return out
}

// seriesAndBase returns the work tree, the series and the upstream commit,
// fetching and importing it if needed: what check, apply and export start
// from.
func (e *env) seriesAndBase(ctx context.Context) (*worktree.Tree, []series.Patch, *pin.Pin, string, error) {
	t, err := e.tree()
	if err != nil {
		return nil, nil, nil, "", err
	}
	patches, err := e.listPatches()
	if err != nil {
		return nil, nil, nil, "", err
	}
	p, base, err := e.fetchBase(ctx, t)
	if err != nil {
		return nil, nil, nil, "", err
	}
	return t, patches, p, base, nil
}

// requireWorkTree fails unless apply has made the work tree.
func (e *env) requireWorkTree(ctx context.Context) (*worktree.Tree, error) {
	t, err := e.tree()
	if err != nil {
		return nil, err
	}
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return nil, fmt.Errorf("no work tree at %s: run `nomadfork apply` (or `make`) first", e.workTree)
	}
	base, err := t.Base(ctx)
	if err != nil {
		return nil, err
	}
	if base == "" {
		return nil, errors.New("the work tree has no upstream branch: run `nomadfork apply` first")
	}
	return t, nil
}
