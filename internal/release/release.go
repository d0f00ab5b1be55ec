// Package release makes the fork's release of a line: for each platform a
// zip holding the nomad binary, as upstream ships it, and a Debian package
// with upstream's package layout, plus SHA256SUMS over all of them and
// RELEASE.md naming the line's patches. Every byte is a function of the
// work tree's commit: built with build.Release and the pinned toolchain,
// archives with the commit's time and fixed owners, so two releases of the
// same commit are identical.
package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Targets are the platforms a release holds.
var Targets = []build.Target{{OS: "linux", Arch: "amd64"}, {OS: "linux", Arch: "arm64"}}

// SumsFile is the name of the checksum file.
const SumsFile = "SHA256SUMS"

// NotesFile is the name of the release notes.
const NotesFile = "RELEASE.md"

// Options say what to release and where.
type Options struct {
	// Tree is the line's work tree, with the series applied.
	Tree *git.Repo
	// Upstream is the line's upstream version, such as v1.5.3.
	Upstream string
	// Fork is the fork release, such as fork.1.
	Fork string
	// Patches is the line's series.
	Patches []series.Patch
	// Security is the line's table of Nomad's security record, for
	// RELEASE.md.
	Security string
	// Dist is where releases go: Dist/<version>/.
	Dist string
	// Scratch is a directory on the same file system as Dist where the
	// release is staged before it is renamed into place.
	Scratch string
	Log     io.Writer
}

// LineOptions returns the Options of the release of line c from its work
// tree, pin and series, with the fork release that changelog names; the
// caller adds where it goes (Dist, Scratch) and Log.
func LineOptions(c worktree.Checkout, changelog string) (Options, error) {
	p, err := c.Pin()
	if err != nil {
		return Options{}, err
	}
	fork, err := build.ForkRelease(changelog, p.Version())
	if err != nil {
		return Options{}, err
	}
	patches, err := series.Require(c.Line.Dir, true)
	if err != nil {
		return Options{}, err
	}
	return Options{Tree: c.Tree.Repo, Upstream: p.Version(), Fork: fork, Patches: patches}, nil
}

// Version is the release's version: upstream's without the v, the fork
// release as build metadata, such as 1.5.3+fork.1.
func (o Options) Version() string {
	return strings.TrimPrefix(o.Upstream, "v") + "+" + o.Fork
}

// Dir is the directory the release goes to.
func (o Options) Dir() string { return filepath.Join(o.Dist, o.Version()) }

// ZipName is the name of a platform's zip, as upstream names its own.
func ZipName(version string, t build.Target) string {
	return fmt.Sprintf("nomad_%s_%s_%s.zip", version, t.OS, t.Arch)
}

// Release is a release written to disk.
type Release struct {
	Dir     string
	Version string
	// Files are the artifacts' names, SHA256SUMS last.
	Files []string
	// Sums is the content of SHA256SUMS.
	Sums string
}

// ErrDirty is returned for a work tree with uncommitted changes: its
// release would not be a function of a commit.
var ErrDirty = hint.Errorf("the work tree has uncommitted changes; a release is built from a commit: commit them (and %s), or discard them with %s", hint.Run("extract"), hint.Run("apply", "-force"))

// Make builds the release into o.Dir(), replacing one that is there. It
// stages everything in o.Scratch and renames the finished directory into
// place, so an interrupted run leaves o.Dist as it was.
func Make(ctx context.Context, o Options) (*Release, error) {
	stage, err := stageRelease(ctx, o)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Dir(stage.Dir))
	dir := o.Dir()
	if err := os.MkdirAll(o.Dist, 0o755); err != nil {
		return nil, err
	}
	old := stage.Dir + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("moving the previous release aside: %w", err)
	}
	if err := os.Rename(stage.Dir, dir); err != nil {
		_ = os.Rename(old, dir)
		return nil, fmt.Errorf("moving the release into %s: %w", o.Dist, err)
	}
	stage.Dir = dir
	return stage, nil
}

// Stage builds the release into a new directory under o.Scratch and
// returns it; the caller removes filepath.Dir(r.Dir).
func stageRelease(ctx context.Context, o Options) (r *Release, err error) {
	stamp, err := build.StampOf(ctx, o.Tree, o.Fork)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(stamp.Revision, "+CHANGES") {
		return nil, ErrDirty
	}
	if !build.Pinned() {
		return nil, fmt.Errorf("%s is set: a release is built with the pinned Go %s; unset it", build.ToolchainOverride, build.Toolchain)
	}
	mtime, err := time.Parse(time.RFC3339, stamp.Date)
	if err != nil {
		return nil, fmt.Errorf("work tree commit time %q: %w", stamp.Date, err)
	}
	if err := os.MkdirAll(o.Scratch, 0o755); err != nil {
		return nil, err
	}
	// Stages a release killed outright left (the verb holds the tool's
	// lock: no other release is staging).
	if old, err := filepath.Glob(filepath.Join(o.Scratch, "stage-*")); err == nil {
		for _, d := range old {
			_ = os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(o.Scratch, "stage-")
	if err != nil {
		return nil, fmt.Errorf("staging the release: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	version := o.Version()
	r = &Release{Dir: filepath.Join(tmp, version), Version: version}
	if err := os.Mkdir(r.Dir, 0o755); err != nil {
		return nil, err
	}
	for _, t := range Targets {
		bin := filepath.Join(tmp, "bin", t.OS+"_"+t.Arch, "nomad")
		err := progress.Step(o.Log, fmt.Sprintf("building nomad %s for %s (%s, -tags %s, cgo)", version, t, build.Toolchain, strings.Join(build.Release.Tags, ",")), func() error {
			if err := build.Release.Build(ctx, o.Tree.Dir, bin, stamp, t); err != nil {
				return err
			}
			return build.CheckBinaryGODEBUG(bin)
		})
		if err != nil {
			return nil, err
		}
		zip := ZipName(version, t)
		err = progress.Step(o.Log, "writing "+zip, func() error {
			return writeZip(filepath.Join(r.Dir, zip), bin, mtime)
		})
		if err != nil {
			return nil, err
		}
		var deb string
		err = progress.Step(o.Log, fmt.Sprintf("packaging the %s .deb", t.Arch), func() error {
			var err error
			deb, err = writeDeb(r.Dir, Package{
				Version: version, Arch: t.Arch, Binary: bin,
				Layout: filepath.Join(o.Tree.Dir, LayoutDir), MTime: mtime,
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		r.Files = append(r.Files, zip, deb)
	}
	notes, err := Notes(o.Upstream, version, stamp, o.Patches, o.Security)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, NotesFile), []byte(notes), 0o644); err != nil {
		return nil, err
	}
	r.Files = append(r.Files, NotesFile)
	sums, err := Sums(r.Dir, r.Files)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, SumsFile), []byte(sums), 0o644); err != nil {
		return nil, err
	}
	r.Sums = sums
	r.Files = append(r.Files, SumsFile)
	return r, nil
}
