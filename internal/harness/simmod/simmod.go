// Package simmod builds the sim module against a line's work tree.
//
// sim/go.mod replaces Nomad (and its nested api module) with the default
// line's work tree, ../nomad. For another line, For writes a copy of that
// go.mod whose replacements point at the line's work tree, adds the work
// tree's own module replacements (a dependency's replace directives do not
// apply to the modules requiring it), tidies the copy and its go.sum, and
// the go command uses it with -modfile: sim/go.mod is never edited per line.
// Lines on Nomad v1.6.0 and later build with the tag TagV1_6.
package simmod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// TagV1_6 is the build tag of lines on Nomad v1.6.0 and later, whose
// AllocRunner interface has methods with types v1.5 does not have.
const TagV1_6 = "nomad_v1_6"

// Tags returns the build tags sim/ needs for a line on upstream version.
func Tags(version string) []string {
	if semver.Compare(version, "v1.6.0") >= 0 {
		return []string{TagV1_6}
	}
	return nil
}

// Module is how the go command builds the sim module against one work
// tree.
type Module struct {
	// Dir is the sim module's directory.
	Dir string
	// ModFile is the generated go.mod; empty: Dir's own go.mod.
	ModFile string
	// Tags are the build tags.
	Tags []string
}

// GoFlags returns the flags for GOFLAGS (-modfile, -tags), so that go
// commands the tests run themselves (go list) see the same build.
func (m Module) GoFlags() []string {
	var flags []string
	if m.ModFile != "" {
		flags = append(flags, "-modfile="+m.ModFile)
	}
	if len(m.Tags) > 0 {
		flags = append(flags, "-tags="+strings.Join(m.Tags, ","))
	}
	return flags
}

// For returns the sim module at dir built against the work tree tree of
// the Nomad module modPath at upstream version. When dir's go.mod already
// replaces modPath with tree it is used as it is; otherwise For writes
// scratch/go.mod and scratch/go.sum and runs go mod tidy on them, which
// needs the network (call it before entering the sandbox).
func For(ctx context.Context, dir, tree, modPath, version, scratch string, log io.Writer) (Module, error) {
	m := Module{Dir: dir, Tags: Tags(version)}
	sim, err := parse(filepath.Join(dir, "go.mod"))
	if err != nil {
		return m, err
	}
	tree, err = filepath.Abs(tree)
	if err != nil {
		return m, err
	}
	target := ""
	for _, r := range sim.Replace {
		if r.Old.Path == modPath && r.Old.Version == "" && modfile.IsDirectoryPath(r.New.Path) {
			target = resolve(dir, r.New.Path)
		}
	}
	if target == "" {
		return m, fmt.Errorf("%s: no replace directive points %s at a directory; the sim module builds against a work tree", filepath.Join(dir, "go.mod"), modPath)
	}
	if target == filepath.Clean(tree) {
		return m, nil
	}
	if err := retarget(sim, dir, target, tree, modPath); err != nil {
		return m, err
	}
	own, err := parse(filepath.Join(tree, "go.mod"))
	if err != nil {
		return m, fmt.Errorf("the work tree's module: %w", err)
	}
	for _, r := range own.Replace {
		newPath := r.New.Path
		if modfile.IsDirectoryPath(newPath) {
			newPath = resolve(tree, newPath)
		}
		if err := sim.AddReplace(r.Old.Path, r.Old.Version, newPath, r.New.Version); err != nil {
			return m, fmt.Errorf("copying %s's replacement of %s: %w", filepath.Join(tree, "go.mod"), r.Old.Path, err)
		}
	}
	sim.Cleanup()
	data, err := sim.Format()
	if err != nil {
		return m, err
	}
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return m, err
	}
	m.ModFile, err = filepath.Abs(filepath.Join(scratch, "go.mod"))
	if err != nil {
		return m, err
	}
	if strings.ContainsAny(m.ModFile, " \t\n") {
		return m, fmt.Errorf("%s: GOFLAGS cannot carry a path with white space; move the repository", m.ModFile)
	}
	if err := atomicfile.WriteFile(m.ModFile, data, 0o644); err != nil {
		return m, err
	}
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return m, err
	}
	if err := atomicfile.WriteFile(strings.TrimSuffix(m.ModFile, ".mod")+".sum", sum, 0o644); err != nil {
		return m, err
	}
	// The line's Nomad may require newer modules than sim/go.mod lists:
	// tidy raises them in the copy (and fetches their go.sum lines).
	cmd := exec.CommandContext(ctx, "go", "mod", "tidy", "-modfile="+m.ModFile)
	cmd.Dir = dir
	cmd.Env = build.GoEnv()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return m, fmt.Errorf("go mod tidy of the sim module against %s (%s): %w", tree, m.ModFile, err)
	}
	return m, nil
}

// parse reads a go.mod strictly: replace directives included.
func parse(file string) (*modfile.File, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(file, data, nil)
}

// retarget points every directory replacement of modPath and of the
// modules nested in it from the directory target to tree.
func retarget(f *modfile.File, dir, target, tree, modPath string) error {
	for _, r := range f.Replace {
		if r.Old.Path != modPath && !strings.HasPrefix(r.Old.Path, modPath+"/") || !modfile.IsDirectoryPath(r.New.Path) {
			continue
		}
		rel, err := filepath.Rel(target, resolve(dir, r.New.Path))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s: %s is replaced by %s, outside %s", filepath.Join(dir, "go.mod"), r.Old.Path, r.New.Path, target)
		}
		if err := f.AddReplace(r.Old.Path, r.Old.Version, filepath.Join(tree, rel), ""); err != nil {
			return err
		}
	}
	return nil
}

// resolve returns a replace directive's directory path as an absolute path.
func resolve(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	abs, err := filepath.Abs(filepath.Join(dir, path))
	if err != nil {
		return filepath.Join(dir, path)
	}
	return abs
}
