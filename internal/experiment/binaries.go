package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Binary is a nomad binary the bench runs, with the label its figures are
// reported under.
type Binary struct {
	Label string `json:"label"`
	Path  string `json:"path"`
	// Source says what the binary was built from: a commit of the work
	// tree's repository, or "external" for a variant given by path.
	Source string `json:"source"`
	// Variant marks binaries given with -variant.
	Variant bool `json:"variant,omitempty"`
	// Version and Revision are what the binary's `nomad version` said in
	// the runs, so a saved report names them after the binaries are gone.
	Version  string `json:"version,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// Builder builds or reuses the bench's binaries. It never changes the work
// tree's files, branches or HEAD: it only adds linked work trees and
// imports commits (which move no refs).
type Builder struct {
	// Tree is the work tree (nomad/).
	Tree *worktree.Tree
	// Pin is the pinned upstream.
	Pin *pin.Pin
	// Targets gives nested module versions of other upstream versions.
	Targets upstream.Targets
	// ForkRelease is the fork's version metadata, such as fork.1.
	ForkRelease string
	// Dir is the bench's output directory (out/bench): sources go to
	// Dir/src/<label>, binaries to Dir/bin/<label>/nomad.
	Dir string
	Log io.Writer
}

// Binaries builds or reuses the binary of every label — the pinned version
// (unpatched), the fork or another upstream version — and adds the variants,
// binaries built elsewhere.
func (b *Builder) Binaries(ctx context.Context, labels []string, variants []Variant) ([]Binary, error) {
	// The variants are checked first: a mistyped path stops the run
	// before minutes of builds, not after them.
	external := make([]Binary, 0, len(variants))
	for _, v := range variants {
		bin, err := External(v.Name, v.Path)
		if err != nil {
			return nil, err
		}
		external = append(external, bin)
	}
	var bins []Binary
	for _, l := range labels {
		var (
			bin Binary
			err error
		)
		switch l {
		case b.Pin.Version():
			bin, err = b.Base(ctx)
		case ForkLabel:
			bin, err = b.Fork(ctx)
		default:
			bin, err = b.Upstream(ctx, l)
		}
		if err != nil {
			return nil, fmt.Errorf("%s binary: %w", l, err)
		}
		bins = append(bins, bin)
	}
	return append(bins, external...), nil
}

// Base builds (or reuses) the unpatched upstream commit, labelled with the
// pinned version.
func (b *Builder) Base(ctx context.Context) (Binary, error) {
	commit, err := commitOf(ctx, b.Tree.Base, "the work tree has no upstream branch")
	if err != nil {
		return Binary{}, err
	}
	return b.buildCommit(ctx, b.Pin.Version(), commit, buildMeta{Commit: commit})
}

// commitOf returns the commit get finds, or an error saying missing when
// there is none.
func commitOf(ctx context.Context, get func(context.Context) (string, error), missing string) (string, error) {
	commit, err := get(ctx)
	if err == nil && commit == "" {
		err = hint.Errorf("%s: run %s first", missing, hint.Run("apply"))
	}
	return commit, err
}

// Fork builds (or reuses) the work tree's HEAD commit. Uncommitted changes
// in nomad/ are not part of it: it builds HEAD in a linked work tree.
func (b *Builder) Fork(ctx context.Context) (Binary, error) {
	commit, err := commitOf(ctx, b.Tree.Head, "the work tree has no HEAD")
	if err != nil {
		return Binary{}, err
	}
	if stopped, err := b.Tree.AmInProgress(ctx); err == nil && stopped {
		fmt.Fprintf(b.Log, "note: an apply is stopped in %s; the fork binary is its HEAD %s, which may lack patches\n", b.Tree.Dir, ShortCommit(commit))
	}
	if dirty, err := b.Tree.Repo.Status(ctx); err == nil && len(dirty) > 0 {
		fmt.Fprintf(b.Log, "note: %s has uncommitted changes; the fork binary is built from HEAD %s without them\n", b.Tree.Dir, ShortCommit(commit))
	}
	return b.buildCommit(ctx, ForkLabel, commit, buildMeta{Commit: commit, Metadata: b.ForkRelease})
}

// Upstream builds (or reuses) another upstream version, downloaded and
// verified through the Go module proxy, imported as a commit object of the
// work tree's repository. Its code is only built and run.
func (b *Builder) Upstream(ctx context.Context, version string) (Binary, error) {
	label := version
	want := buildMeta{Version: version, Nested: map[string]string{}, Build: build.Test.ID()}
	for _, n := range b.Pin.Nested {
		want.Nested[n.Path] = b.Targets[version][n.Path]
	}
	if have, ok := b.loadMeta(label); ok && have.Commit != "" {
		want.Commit = have.Commit
		if have.equal(want) {
			fmt.Fprintf(b.Log, "reusing %s (upstream %s, commit %s)\n", b.binPath(label), version, ShortCommit(have.Commit))
			return Binary{Label: label, Path: b.binPath(label), Source: have.Commit}, nil
		}
	}
	var commit string
	err := progress.Step(b.Log, "downloading and importing upstream "+version, func() error {
		_, mods, _, err := upstream.Resolve(ctx, b.Pin, version, b.Targets, nil, false, b.Log)
		if err != nil {
			return err
		}
		commit, err = b.Tree.ImportBase(ctx, mods)
		return err
	})
	if err != nil {
		return Binary{}, err
	}
	want.Commit = commit
	return b.buildCommit(ctx, label, commit, want)
}

// buildCommit checks commit out in the linked work tree Dir/src/<label> and
// builds it, unless the binary of the same meta exists.
func (b *Builder) buildCommit(ctx context.Context, label, commit string, want buildMeta) (Binary, error) {
	bin := Binary{Label: label, Path: b.binPath(label), Source: commit}
	want.Build = build.Test.ID()
	if have, ok := b.loadMeta(label); ok && have.equal(want) {
		fmt.Fprintf(b.Log, "reusing %s (commit %s)\n", bin.Path, ShortCommit(commit))
		return bin, nil
	}
	src := filepath.Join(b.Dir, "src", label)
	if err := b.checkout(ctx, src, commit); err != nil {
		return bin, err
	}
	wt := &git.Repo{Dir: src}
	stamp, err := build.StampOf(ctx, wt, want.Metadata)
	if err != nil {
		return bin, err
	}
	_ = os.Remove(bin.Path + ".json")
	err = progress.Step(b.Log, fmt.Sprintf("building %s nomad (commit %s) into %s", label, ShortCommit(commit), bin.Path), func() error {
		return build.Nomad(ctx, src, bin.Path, stamp)
	})
	if err != nil {
		return bin, err
	}
	return bin, b.saveMeta(label, want)
}

// checkout makes dir a fresh linked work tree of the repository at commit,
// through the scratch-tree helper every command uses. The tree is left in
// place for the build (and for reading the source the binary came from);
// the next checkout replaces it.
func (b *Builder) checkout(ctx context.Context, dir, commit string) error {
	_, _, err := b.Tree.Repo.Scratch(ctx, dir, commit)
	return err
}

// External checks a variant binary given by path. It is never run outside
// the sandbox, so only its existence and mode are checked here.
func External(label, path string) (Binary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Binary{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Binary{}, fmt.Errorf("variant %s: %w", label, err)
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return Binary{}, fmt.Errorf("variant %s: %s is not an executable file", label, abs)
	}
	return Binary{Label: label, Path: abs, Source: "external", Variant: true}, nil
}

// ShortCommit is a commit's first 12 hex digits (a "+CHANGES" suffix dropped).
func ShortCommit(commit string) string {
	c := strings.TrimSuffix(commit, "+CHANGES")
	if len(c) > 12 {
		c = c[:12]
	}
	return c
}

// NewBuilder returns the Builder of the binaries of the work tree t, whose
// pin is p, in dir: the nested modules of other upstream versions from
// root's targets.json, the fork's version metadata from the changelog.
func NewBuilder(t *worktree.Tree, p *pin.Pin, root, changelog, dir string, log io.Writer) (*Builder, error) {
	targets, err := upstream.LoadTargets(filepath.Join(root, upstream.TargetsFile))
	if err != nil {
		return nil, err
	}
	release, err := build.ForkRelease(changelog, p.Version())
	if err != nil {
		return nil, err
	}
	return &Builder{Tree: t, Pin: p, Targets: targets, ForkRelease: release, Dir: dir, Log: log}, nil
}
