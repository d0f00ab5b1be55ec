// Package worktree manages the work tree: a git repository whose branch
// "upstream" holds the unpatched upstream tree and whose branch "fork" holds
// one commit per patch of the series on top of it.
package worktree

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
)

const (
	// BaseBranch names the unpatched upstream commit.
	BaseBranch = "upstream"
	// ForkBranch is the branch the series is applied on.
	ForkBranch = "fork"
	// BaseRef is the full ref of BaseBranch.
	BaseRef = "refs/heads/" + BaseBranch

	stateFile = "nomadfork.json"
)

// Tree is the work tree.
type Tree struct {
	Dir  string
	Repo *git.Repo
	// Log receives progress and reports.
	Log io.Writer
}

// New returns the work tree at dir, which need not exist yet.
func New(dir string, log io.Writer) (*Tree, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	return &Tree{Dir: abs, Repo: &git.Repo{Dir: abs}, Log: log}, nil
}

// Exists reports whether the work tree directory exists.
func (t *Tree) Exists() bool {
	_, err := os.Stat(t.Dir)
	return err == nil
}

// HasRepo reports whether the work tree exists and is a git repository.
// Its error is an interruption, never a "no".
func (t *Tree) HasRepo(ctx context.Context) (bool, error) {
	if !t.Exists() {
		return false, ctx.Err()
	}
	return t.Repo.IsRepo(ctx)
}

// State is the one record the tool keeps about the work tree, in its git
// directory: what it was made from and the operation in progress, if any.
type State struct {
	// Base is the commit of the upstream tree the series was applied on.
	Base string `json:"base"`
	// Applied is HEAD when the work tree last matched patches/ exactly,
	// after an apply or an extract; empty when it did not.
	Applied string `json:"applied,omitempty"`
	// Pending lists the patches an apply still has to apply, the first of
	// which is being applied; empty when no apply is in progress.
	Pending []string `json:"pending,omitempty"`
	// Unapplied lists the patches an aborted apply never applied: the
	// work tree lacks them though patches/ holds them, so extract must
	// not take their absence for a deliberate drop.
	Unapplied []string `json:"unapplied,omitempty"`
	// Resolved lists patches applied with a hand-made resolution that
	// has not been extracted yet.
	Resolved []string `json:"resolved,omitempty"`
	// StopHead is HEAD when an apply stopped at a conflict: a resolution
	// committed by an interrupted -continue is the commit on top of it.
	StopHead string `json:"stop_head,omitempty"`
	// Rebase is the rebase in progress, if any.
	Rebase *RebaseRecord `json:"rebase,omitempty"`
	// Hashes maps each patch file's name to the hash of its content as
	// nomadfork last wrote or applied it (series.Hash): extract refuses
	// to overwrite a file changed since.
	Hashes map[string]string `json:"hashes,omitempty"`
}

// RebaseRecord is a rebase in progress. Package rebase keeps its own
// details in Detail.
type RebaseRecord struct {
	// Onto is the target version.
	Onto string `json:"onto"`
	// Stopped is the patch the rebase stopped at with a conflict; empty
	// while it runs or after an interruption.
	Stopped string          `json:"stopped,omitempty"`
	Detail  json.RawMessage `json:"detail"`
}

// StatePath returns the file of the state record.
func (t *Tree) StatePath(ctx context.Context) (string, error) {
	return t.statePath(ctx)
}

// MarshalState returns the encoding SaveState writes.
func MarshalState(s *State) ([]byte, error) {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

func (t *Tree) statePath(ctx context.Context) (string, error) {
	dir, err := t.Repo.GitDir(ctx)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, stateFile), nil
}

// LoadState returns the recorded state, or a zero State if none exists.
func (t *Tree) LoadState(ctx context.Context) (*State, error) {
	var s State
	if ok, err := t.HasRepo(ctx); err != nil {
		return nil, err
	} else if !ok {
		return &s, nil
	}
	path, err := t.statePath(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := atomicfile.ReadJSON(path, &s); err != nil {
		return nil, fmt.Errorf("reading work tree state: %w", err)
	}
	return &s, nil
}

// SaveState records s.
func (t *Tree) SaveState(ctx context.Context, s *State) error {
	path, err := t.statePath(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, s)
}

// Init creates the repository if the work tree does not exist yet. It is
// made in a temporary directory beside it and renamed into place, so an
// interruption never leaves a half-made repository at Dir.
func (t *Tree) Init(ctx context.Context) error {
	if t.Exists() {
		ok, err := t.Repo.IsRepo(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s exists but is not a git repository; move it away (nomadfork creates it)", t.Dir)
		}
		return nil
	}
	parent := filepath.Dir(t.Dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	stale, _ := filepath.Glob(filepath.Join(parent, "."+filepath.Base(t.Dir)+".init-*"))
	for _, d := range stale {
		os.RemoveAll(d)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(t.Dir)+".init-*")
	if err != nil {
		return err
	}
	r := &git.Repo{Dir: tmp}
	if _, err := r.Run(ctx, "init", "--quiet", "--initial-branch="+ForkBranch); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, t.Dir); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	return nil
}

// Base returns the commit BaseBranch names, or "" if there is none.
func (t *Tree) Base(ctx context.Context) (string, error) {
	return t.Repo.ResolveCommit(ctx, BaseRef)
}

// Head returns the commit HEAD names, or "" if there is none.
func (t *Tree) Head(ctx context.Context) (string, error) {
	return t.Repo.ResolveCommit(ctx, "HEAD")
}

// AmInProgress reports whether a `git am` session is stopped in the tree.
func (t *Tree) AmInProgress(ctx context.Context) (bool, error) {
	return t.Repo.AmInProgress(ctx)
}

// ChangedPackages returns the Go package directories, as ./dir patterns,
// holding .go files that from..to adds or changes and that exist in the
// work tree. Nested modules (dirs with their own go.mod) are left out.
func ChangedPackages(ctx context.Context, repo *git.Repo, from, to string) ([]string, error) {
	files, err := repo.Lines(ctx, "diff", "--name-only", "--no-renames", from, to)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var pkgs []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") {
			continue
		}
		dir := filepath.Dir(f)
		if seen[dir] || inNestedModule(repo.Dir, dir) {
			continue
		}
		seen[dir] = true
		if _, err := os.Stat(filepath.Join(repo.Dir, dir)); err != nil {
			continue
		}
		if dir == "." {
			pkgs = append(pkgs, ".")
		} else {
			pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
		}
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

func inNestedModule(top, dir string) bool {
	for d := dir; d != "." && d != "/" && d != ""; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(top, d, "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// Copy makes a new work tree at dir holding t's branches, checked out at
// the fork branch, and t's state record: the start of a new line made from
// t's. dir must not exist. t must have no uncommitted changes and no apply
// or rebase in progress; the copy is removed again if making it fails.
func (t *Tree) Copy(ctx context.Context, dir string) (_ *Tree, err error) {
	if err := t.Require(ctx, Need{Verb: "rebase -new-line", Base: true, NoOp: true, Clean: true}); err != nil {
		return nil, err
	}
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("%s already exists; move it away (nomadfork creates it)", dir)
	}
	if err := t.checkSpace(filepath.Dir(dir)); err != nil {
		return nil, err
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	c, err := New(dir, t.Log)
	if err != nil {
		return nil, err
	}
	if err := c.Init(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(c.Dir)
		}
	}()
	end := progress.Begin("copying " + t.Dir + " to " + dir)
	_, err = c.Repo.Run(ctx, "fetch", "--quiet", "--update-head-ok", "--no-tags", t.Dir, "+refs/heads/*:refs/heads/*")
	end()
	if err != nil {
		return nil, err
	}
	if _, err := c.Repo.Run(ctx, "checkout", "--quiet", "--force", ForkBranch); err != nil {
		return nil, err
	}
	if err := c.SaveState(ctx, state); err != nil {
		return nil, err
	}
	return c, nil
}

// SpaceError is returned when the file system lacks room for a copy.
type SpaceError struct {
	Dir         string
	Need, Avail uint64
}

func (e *SpaceError) Error() string {
	return fmt.Sprintf("disk full: copying the work tree needs about %d MB in %s, and %d MB are free",
		e.Need>>20, e.Dir, e.Avail>>20)
}

// Is makes errors.Is(err, syscall.ENOSPC) true: the caller says where to
// free space.
func (e *SpaceError) Is(target error) bool { return target == syscall.ENOSPC }

// checkSpace checks, before a copy of the work tree to a directory under
// parent, that parent's file system has room for it (the size of the work
// tree, its repository included).
func (t *Tree) checkSpace(parent string) error {
	var need uint64
	_ = filepath.Walk(t.Dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			need += uint64(fi.Size())
		}
		return nil
	})
	dir := parent
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return nil
	}
	avail := st.Bavail * uint64(st.Bsize)
	if need > avail {
		return &SpaceError{Dir: dir, Need: need, Avail: avail}
	}
	return nil
}
