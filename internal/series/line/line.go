// Package line knows the repository's layout of maintained lines. A line is
// an upstream version the fork is maintained on, with a series of its own:
//
//	patches/default-line         the default line's name, such as v1.5.3
//	patches/<line>/upstream.json the line's pin
//	patches/<line>/NNNN-*.patch  the line's series
//	patches/<line>/baseline/     its test baselines (client-<line>.tsv, …)
//
// A line is named by the upstream version it is pinned to. Its work tree is
// nomad/ for the default line and lines/<line>/nomad for the others (both
// git-ignored).
package line

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

const (
	// PatchesDir holds a directory per line.
	PatchesDir = "patches"
	// DefaultFile, in PatchesDir, names the default line.
	DefaultFile = "default-line"
	// WorkTreesDir holds the work trees of the lines other than the
	// default one.
	WorkTreesDir = "lines"
	// BaselineDir is the directory of a line's baselines, in its directory.
	BaselineDir = "baseline"
)

// Line is one maintained line: where its files and its work tree are.
type Line struct {
	// Name is the upstream version the line is pinned to, such as v1.5.6.
	Name string
	// Dir holds the line's patch files, pin and baselines.
	Dir string
	// Pin is the line's pin file.
	Pin string
	// Baselines is the directory of the line's test baselines.
	Baselines string
	// WorkTree is the line's work tree.
	WorkTree string
	// Default reports whether this is the default line.
	Default bool
}

// Layout is the layout of lines in a repository.
type Layout struct {
	// Root is the repository's top directory.
	Root string
}

// ErrUnknown is returned for a line the repository does not hold.
var ErrUnknown = errors.New("unknown line")

// IsRepo reports whether root looks like the repository's top directory:
// it has the default line's record.
func (l Layout) IsRepo() bool {
	_, err := os.Stat(filepath.Join(l.Root, PatchesDir, DefaultFile))
	return err == nil
}

// Default returns the name of the default line.
func (l Layout) Default() (string, error) {
	file := filepath.Join(l.Root, PatchesDir, DefaultFile)
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("reading the default line: %w", err)
	}
	name := strings.TrimSpace(string(data))
	if !semver.IsValid(name) {
		return "", fmt.Errorf("%s: %q is not a version such as v1.5.3", file, name)
	}
	return name, nil
}

// SetDefault records name as the default line.
func (l Layout) SetDefault(name string) error {
	return atomicfile.WriteFile(filepath.Join(l.Root, PatchesDir, DefaultFile), []byte(name+"\n"), 0o644)
}

// Names returns the lines the repository holds (the directories of
// PatchesDir with a pin file), oldest first.
func (l Layout) Names() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(l.Root, PatchesDir))
	if err != nil {
		return nil, fmt.Errorf("listing lines: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() || !semver.IsValid(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(l.Root, PatchesDir, e.Name(), pin.DefaultFile)); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Slice(names, func(i, j int) bool { return semver.Compare(names[i], names[j]) < 0 })
	return names, nil
}

// At returns where line name's files and work tree are, whether or not it
// exists yet.
func (l Layout) At(name string) (Line, error) {
	def, err := l.Default()
	if err != nil {
		return Line{}, err
	}
	dir := filepath.Join(l.Root, PatchesDir, name)
	ln := Line{
		Name:      name,
		Dir:       dir,
		Pin:       filepath.Join(dir, pin.DefaultFile),
		Baselines: filepath.Join(dir, BaselineDir),
		WorkTree:  filepath.Join(l.Root, WorkTreesDir, name, "nomad"),
		Default:   name == def,
	}
	if ln.Default {
		ln.WorkTree = filepath.Join(l.Root, "nomad")
	}
	return ln, nil
}

// Get returns line name, or the default line for "". A name the repository
// does not hold is an error naming the lines it does.
func (l Layout) Get(name string) (Line, error) {
	implicit := name == ""
	if name == "" {
		def, err := l.Default()
		if err != nil {
			return Line{}, err
		}
		name = def
	}
	names, err := l.Names()
	if err != nil {
		return Line{}, err
	}
	for _, n := range names {
		if n == name {
			ln, err := l.At(name)
			if err != nil {
				return Line{}, err
			}
			return ln, l.checkPin(ln)
		}
	}
	if ln, err := l.At(name); err == nil && implicit {
		if _, err := os.Stat(ln.Dir); err == nil {
			// The default line's directory is there, its pin is not.
			rel, _ := filepath.Rel(l.Root, ln.Pin)
			return Line{}, fmt.Errorf("%w %q: %s is missing (every line's directory holds its pin); restore it (`git checkout -- %s`)", ErrNoPin, name, rel, rel)
		}
	}
	return Line{}, l.unknown(name, names)
}

// ErrNoPin is returned for a line whose directory lacks its pin.
var ErrNoPin = errors.New("no pin for line")

func (l Layout) unknown(name string, names []string) error {
	known := "none"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return fmt.Errorf("%w %q: the lines are %s (each a directory %s/<line>/ with %s)", ErrUnknown, name, known, PatchesDir, pin.DefaultFile)
}

// Unknown returns the error for a line name the repository does not hold.
func (l Layout) Unknown(name string) error {
	names, err := l.Names()
	if err != nil {
		return err
	}
	return l.unknown(name, names)
}

// checkPin verifies that a line's pin names the line's version.
func (l Layout) checkPin(ln Line) error {
	p, err := pin.Load(ln.Pin)
	if err != nil {
		return err
	}
	if p.Version() != ln.Name {
		return fmt.Errorf("%s pins %s, but its line is %s: a line is named by its upstream version; rename the directory or fix the pin", ln.Pin, p.Version(), ln.Name)
	}
	return nil
}

// Move renames line from to line to after a rebase moved it onto a newer
// upstream: its directory, its work tree (the default line's stays
// nomad/) and the default record. Baselines of the old version are
// removed: they describe an upstream the line no longer uses.
func (l Layout) Move(from, to string) (Line, error) {
	src, err := l.At(from)
	if err != nil {
		return Line{}, err
	}
	dst, err := l.At(to)
	if err != nil {
		return Line{}, err
	}
	if _, err := os.Stat(dst.Dir); err == nil {
		return Line{}, fmt.Errorf("moving line %s to %s: %s already exists", from, to, dst.Dir)
	}
	if err := os.Rename(src.Dir, dst.Dir); err != nil {
		return Line{}, fmt.Errorf("moving line %s to %s: %w", from, to, err)
	}
	if src.Default {
		if err := l.SetDefault(to); err != nil {
			return Line{}, err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(filepath.Dir(dst.WorkTree)), 0o755); err != nil {
			return Line{}, err
		}
		if err := os.Rename(filepath.Dir(src.WorkTree), filepath.Dir(dst.WorkTree)); err != nil {
			return Line{}, fmt.Errorf("moving the work tree of line %s: %w", from, err)
		}
	}
	stale, _ := filepath.Glob(filepath.Join(dst.Baselines, "*-"+from+".tsv"))
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return Line{}, err
		}
	}
	return l.At(to)
}

// WorkTrees returns the work tree directories of the lines there are or
// were: nomad/ and lines/*/nomad.
func (l Layout) WorkTrees() []string {
	more, _ := filepath.Glob(filepath.Join(l.Root, WorkTreesDir, "*", "nomad"))
	return append([]string{filepath.Join(l.Root, "nomad")}, more...)
}
