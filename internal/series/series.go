// Package series reads, exports and writes the patch series: the ordered
// NNNN-subject.patch files that turn the upstream tree into the fork.
package series

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// FormatPatchArgs are the fixed `git format-patch` flags that make a patch
// file a pure function of its commit: no commit hash, no signature or
// version, full blob hashes in index lines, no rename detection and no
// dependence on diff configuration.
var FormatPatchArgs = []string{
	"format-patch",
	"--zero-commit",
	"--no-signature",
	"--full-index",
	"--no-numbered",
	"--no-renames",
	"--no-stat",
	"--no-color",
	"--diff-algorithm=myers",
	"--filename-max-length=64",
	"--encoding=UTF-8",
}

// Patch is one file of the series, read and parsed once by List.
type Patch struct {
	// Name is the file name, such as 0001-client-prioritize-updates.patch.
	Name string
	// Path is the file's path.
	Path string
	// Number is the NNNN prefix.
	Number int
	// Data is the file's content.
	Data []byte
	// Meta is the commit message's metadata, nil if it does not parse;
	// MetaErr then says why.
	Meta    *metadata.Patch
	MetaErr error
}

// Metadata returns the parsed metadata, or the parse error naming the
// patch.
func (p Patch) Metadata() (*metadata.Patch, error) {
	if p.Meta == nil {
		return nil, fmt.Errorf("%s: %w", p.Name, p.MetaErr)
	}
	return p.Meta, nil
}

var nameRE = regexp.MustCompile(`^([0-9]{4})-[A-Za-z0-9._-]+\.patch$`)

// List returns the patches in dir in series order. It fails on .patch files
// whose names do not follow NNNN-subject.patch and on gaps or duplicates in
// the numbering.
func List(dir string) ([]Patch, error) {
	patches, err := ListAny(dir)
	if err != nil {
		return nil, err
	}
	for i, p := range patches {
		if p.Number != i+1 {
			return nil, &GapError{Path: p.Path, Want: i + 1}
		}
	}
	return patches, nil
}

// GapError is returned by List for a series whose numbering has a gap or a
// duplicate.
type GapError struct {
	Path string
	Want int
}

func (e *GapError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *GapError) Render(r hint.Renderer) string {
	// The restore names the missing number's file only: a checkout of
	// the whole directory would discard the user's other edits there.
	// A file renamed by hand (a number changed) may be one git does not
	// track, which no checkout restores: renaming it back is the way.
	dir, base := filepath.Dir(e.Path), filepath.Base(e.Path)
	back := filepath.Join(dir, fmt.Sprintf("%04d", e.Want)+base[strings.IndexByte(base, '-'):])
	return hint.Sprintf("%s: expected number %04d (the series is numbered from 0001 without gaps): a patch file is missing or was renamed; "+
		"if you renamed this one, rename it back (`mv '%s' '%s'`); "+
		"if one is missing, restore it (`git checkout -- '%s'` for a file the repository tracks, which leaves the other files as they are), or, to remove a patch from the series, drop its commit in the work tree (`git rebase -i upstream` there) and run %s, which renumbers the files "+
		"(after an aborted apply, %s refuses until the series is applied: restore the file and run %s first)",
		e.Path, e.Want, e.Path, back, filepath.Join(dir, fmt.Sprintf("%04d-*.patch", e.Want)), hint.Run("extract"), hint.Run("extract"), hint.Run("apply")).Render(r)
}

// ListAny is List without the numbering check: extract reads the series it
// replaces with it.
func ListAny(dir string) ([]Patch, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing patches: %w", err)
	}
	var patches []Patch
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".patch" {
			continue
		}
		m := nameRE.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, hint.Errorf("%s: patch files are named NNNN-subject.patch; rename it or run %s", filepath.Join(dir, e.Name()), hint.Run("extract"))
		}
		n, _ := strconv.Atoi(m[1])
		p := Patch{Name: e.Name(), Path: filepath.Join(dir, e.Name()), Number: n}
		if p.Data, err = os.ReadFile(p.Path); err != nil {
			return nil, fmt.Errorf("reading patch: %w", err)
		}
		p.Meta, p.MetaErr = metadata.Parse(p.Data)
		patches = append(patches, p)
	}
	sort.Slice(patches, func(i, j int) bool { return patches[i].Name < patches[j].Name })
	return patches, nil
}

// ErrNoPatches is returned by Require for a missing or empty series.
var ErrNoPatches = errors.New("the series is empty")

// Require returns the patches in dir, refusing an empty or missing series
// unless allowEmpty is set: a verb that meets no patches has most likely
// been pointed at the wrong directory, or patches/ was lost.
func Require(dir string, allowEmpty bool) ([]Patch, error) {
	patches, err := List(dir)
	if err != nil || len(patches) > 0 || allowEmpty {
		return patches, err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist; restore it (`git checkout -- patches`) or pass -allow-empty to work with upstream alone", ErrNoPatches, dir)
	}
	return nil, fmt.Errorf("%w: %s holds no NNNN-subject.patch files; restore them (`git checkout -- patches`) or pass -allow-empty to work with upstream alone", ErrNoPatches, dir)
}

// File is an exported patch file.
type File struct {
	Name string
	Data []byte
}

// Export formats the commits in base..head of repo as patch files, in
// order, with FormatPatchArgs, numbering them from 1.
func Export(ctx context.Context, repo *git.Repo, base, head string) ([]File, error) {
	return ExportFrom(ctx, repo, base, head, 1)
}

// ExportFrom is Export numbering the files from start.
func ExportFrom(ctx context.Context, repo *git.Repo, base, head string, start int) ([]File, error) {
	tmp, err := os.MkdirTemp("", "nomadfork-export-")
	if err != nil {
		return nil, fmt.Errorf("exporting patches: %w", err)
	}
	defer os.RemoveAll(tmp)
	args := append(append([]string{}, FormatPatchArgs...), "--start-number="+strconv.Itoa(start), "-o", tmp, base+".."+head)
	if _, err := repo.Run(ctx, args...); err != nil {
		return nil, fmt.Errorf("exporting patches: %w", err)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, fmt.Errorf("exporting patches: %w", err)
	}
	var files []File
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("exporting patches: %w", err)
		}
		if len(data) == 0 {
			return nil, fmt.Errorf("exporting patches: %s would be empty (an empty commit); drop or squash it", e.Name())
		}
		files = append(files, File{Name: e.Name(), Data: data})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// Matching returns how many leading files equal the leading patches, byte
// for byte and by name.
func Matching(files []File, patches []Patch) int {
	n := 0
	for n < len(files) && n < len(patches) {
		if files[n].Name != patches[n].Name || !bytes.Equal(files[n].Data, patches[n].Data) {
			break
		}
		n++
	}
	return n
}

// Change describes what Write did to one file.
type Change struct {
	Name   string
	Action string // "unchanged", "updated", "added", "renamed" or "removed"
	// From is the old name of a renamed file.
	From string
}

// ErrEmpty is returned by Write when it would delete every patch.
var ErrEmpty = errors.New("refusing to delete every patch")

// Write makes dir hold exactly files: each file is written atomically and
// only if its content changed, then patch files not in files are removed.
// It refuses to replace a non-empty series with an empty one unless
// allowEmpty is set.
func Write(dir string, files []File, allowEmpty bool) ([]Change, error) {
	existing, err := List(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 && len(existing) > 0 && !allowEmpty {
		return nil, fmt.Errorf("%w in %s: the work tree has no commits after the base; "+
			"if you really mean to empty the series, delete the files by hand", ErrEmpty, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("writing patches: %w", err)
	}
	keep := map[string]bool{}
	var changes []Change
	for _, f := range files {
		keep[f.Name] = true
		path := filepath.Join(dir, f.Name)
		old, err := os.ReadFile(path)
		switch {
		case err == nil && bytes.Equal(old, f.Data):
			changes = append(changes, Change{Name: f.Name, Action: "unchanged"})
			continue
		case err == nil:
			changes = append(changes, Change{Name: f.Name, Action: "updated"})
		case errors.Is(err, os.ErrNotExist):
			changes = append(changes, Change{Name: f.Name, Action: "added"})
		default:
			return nil, fmt.Errorf("writing patches: %w", err)
		}
		if err := atomicfile.WriteFile(path, f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	for _, p := range existing {
		if keep[p.Name] {
			continue
		}
		if err := os.Remove(p.Path); err != nil {
			return nil, fmt.Errorf("removing stale patch: %w", err)
		}
		changes = append(changes, Change{Name: p.Name, Action: "removed"})
	}
	return changes, nil
}

// Find returns the patch name names: its file name, with or without
// .patch, or its number.
func Find(patches []Patch, name string) (*Patch, error) {
	for i, p := range patches {
		if p.Name == name || strings.TrimSuffix(p.Name, ".patch") == name || fmt.Sprintf("%04d", p.Number) == name {
			return &patches[i], nil
		}
	}
	if len(patches) == 0 {
		return nil, fmt.Errorf("no patch %q: the series is empty", name)
	}
	first, last := patches[0], patches[len(patches)-1]
	return nil, fmt.Errorf("no patch %q in the series: give a patch's number (%04d to %04d) or its file name in %s",
		name, first.Number, last.Number, filepath.Dir(first.Path))
}

// MarkApplied records in p's file that upstream carries it since version
// (Upstream-Status: applied <version>), through the pull request url if
// given (Applied-Upstream: <url>). The file is written only if its
// metadata stays valid.
func MarkApplied(p *Patch, version, url string) error {
	data, err := metadata.SetTrailer(p.Data, "Upstream-Status", "applied "+version)
	if err == nil && url != "" {
		data, err = metadata.SetTrailer(data, "Applied-Upstream", url)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	md, err := metadata.Parse(data)
	if err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	if errs := md.Lint(); len(errs) > 0 {
		return fmt.Errorf("%s would be invalid: %v", p.Name, errs[0])
	}
	if err := atomicfile.WriteFile(p.Path, data, 0o644); err != nil {
		return err
	}
	p.Data, p.Meta, p.MetaErr = data, md, nil
	return nil
}

// Hash returns the hash the work tree's state record keeps of a patch
// file's content.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Hashes returns the hash of every file, by name.
func Hashes(files []File) map[string]string {
	m := map[string]string{}
	for _, f := range files {
		m[f.Name] = Hash(f.Data)
	}
	return m
}

// PatchHashes returns the hash of every patch, by name.
func PatchHashes(patches []Patch) map[string]string {
	m := map[string]string{}
	for _, p := range patches {
		m[p.Name] = Hash(p.Data)
	}
	return m
}

// Slug is a patch file's name without its number: what stays when the
// series is renumbered.
func Slug(name string) string {
	if m := nameRE.FindStringSubmatch(name); m != nil {
		return name[len(m[1])+1:]
	}
	return name
}

// Plan returns what writing files over the patches old changes, without
// writing: each file unchanged, updated or added, each old patch removed,
// and an added file whose slug a removed one had as renamed (From).
func Plan(files []File, old []Patch) []Change {
	byName := map[string]Patch{}
	for _, p := range old {
		byName[p.Name] = p
	}
	keep := map[string]bool{}
	var changes []Change
	for _, f := range files {
		keep[f.Name] = true
		p, ok := byName[f.Name]
		switch {
		case ok && bytes.Equal(p.Data, f.Data):
			changes = append(changes, Change{Name: f.Name, Action: "unchanged"})
		case ok:
			changes = append(changes, Change{Name: f.Name, Action: "updated"})
		default:
			changes = append(changes, Change{Name: f.Name, Action: "added"})
		}
	}
	removed := map[string]string{}
	for _, p := range old {
		if !keep[p.Name] {
			removed[Slug(p.Name)] = p.Name
		}
	}
	for i, c := range changes {
		if c.Action != "added" {
			continue
		}
		if from, ok := removed[Slug(c.Name)]; ok {
			changes[i] = Change{Name: c.Name, Action: "renamed", From: from}
			delete(removed, Slug(c.Name))
		}
	}
	for _, p := range old {
		if !keep[p.Name] {
			if _, ok := removed[Slug(p.Name)]; ok && removed[Slug(p.Name)] == p.Name {
				changes = append(changes, Change{Name: p.Name, Action: "removed"})
			}
		}
	}
	return changes
}
