package upstream

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// TargetsFile names the file that records, per upstream version, nested
// module versions that cannot be derived from the proxy's metadata.
const TargetsFile = "targets.json"

// Targets maps an upstream version to nested module path → version.
type Targets map[string]map[string]string

// LoadTargets reads the targets file; a missing file is empty.
func LoadTargets(file string) (Targets, error) {
	t := Targets{}
	_, err := atomicfile.ReadJSON(file, &t)
	return t, err
}

// PseudoVersion returns the v0.0.0 pseudo-version of a commit, the form the
// Go module proxy serves nested modules of an untagged commit in.
func PseudoVersion(m *Module) (string, error) {
	if len(m.Commit) < 12 || m.Time.IsZero() {
		return "", fmt.Errorf("the proxy does not tell the commit of %s", m.Module)
	}
	return "v0.0.0-" + m.Time.UTC().Format("20060102150405") + "-" + m.Commit[:12], nil
}

// Resolve downloads upstream version of cur's main module and the nested
// modules cur has, and returns the pin for it. Nested versions come from
// overrides, then targets, then the pseudo-version of the tag's commit.
// Checksums are the ones the go command verified against the checksum
// database.
//
// With keepNested set, a nested module that cannot be obtained verified is
// replaced by cur's (which the pin verifies) and a note says so; status
// reports use this, since the series does not patch nested modules.
func Resolve(ctx context.Context, cur *pin.Pin, version string, targets Targets, overrides map[string]string, keepNested bool, w io.Writer) (*pin.Pin, []*Module, []string, error) {
	var notes []string
	for path := range overrides {
		known := false
		var names []string
		for _, n := range cur.Nested {
			known = known || n.Path == path
			names = append(names, n.Path)
		}
		if !known {
			if len(names) == 0 {
				return nil, nil, nil, fmt.Errorf("-nested %s: the pin has no nested modules, so -nested has nothing to set", path)
			}
			return nil, nil, nil, fmt.Errorf("-nested %s: not a nested module of the pin (those are %s)", path, strings.Join(names, ", "))
		}
	}
	main := pin.Module{Path: cur.Module.Path, Version: version}
	fmt.Fprintf(w, "downloading %s\n", main)
	m, err := Download(ctx, main)
	if err != nil {
		return nil, nil, nil, err
	}
	next := &pin.Pin{Module: pin.Module{Path: main.Path, Version: version, Sum: m.Sum}}
	m.Module.Sum = m.Sum
	mods := []*Module{m}
	for _, n := range cur.Nested {
		v := overrides[n.Path]
		if v == "" {
			v = targets[version][n.Path]
		}
		if v == "" {
			if v, err = PseudoVersion(m); err != nil {
				return nil, nil, nil, fmt.Errorf("%w; give the version of %s with -nested %s@<version> or in %s", err, n.Path, n.Path, TargetsFile)
			}
		}
		want := pin.Module{Path: n.Path, Version: v, Dir: n.Dir}
		fmt.Fprintf(w, "downloading %s\n", want)
		got, err := Download(ctx, want)
		if err != nil && keepNested {
			fmt.Fprintf(w, "note: %s is not available verified; using %s for %s/\n", want, n, n.Dir)
			notes = append(notes, fmt.Sprintf("%s/ from %s (the target's %s is not available verified)", n.Dir, n, n.Path))
			want = n
			got, err = Download(ctx, want)
			if err == nil {
				err = verify(want, got)
			}
		}
		if err != nil {
			if strings.Contains(err.Error(), "sumdb") || strings.Contains(err.Error(), "not available") || strings.Contains(err.Error(), "verifying") {
				err = fmt.Errorf("%w\nthe checksum database does not vouch for %s; nomadfork never pins an unverified module: "+
					"find a verified version of %s for %s and pass it with -nested or record it in %s", err, want, n.Path, version, TargetsFile)
			}
			return nil, nil, nil, err
		}
		want.Sum = got.Sum
		if want.GoSum, err = RequiredSums(ctx, m, got); err != nil {
			return nil, nil, nil, err
		}
		for _, l := range want.GoSum {
			fmt.Fprintf(w, "note: go.sum gets %q, which %s requires\n", l, want)
		}
		got.Module = want
		next.Nested = append(next.Nested, want)
		mods = append(mods, got)
	}
	if err := next.Validate(); err != nil {
		return nil, nil, nil, err
	}
	for i, want := range next.Modules() {
		if err := verify(want, mods[i]); err != nil {
			return nil, nil, nil, err
		}
	}
	return next, mods, notes, nil
}

// CheckReplacements makes sure every local-path replace directive of the
// main module's go.mod points at a directory the module zip or a nested
// module of the pin provides; otherwise the tree could not build.
func CheckReplacements(mods []*Module, pinFile string) error {
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
				main.Module, target.module, target.dir, dir, target.module, dir, pinFile)
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

// Versions parses a comma-separated list of versions; an empty list means
// the versions of targets newer than pinned, in order.
func Versions(list string, targets Targets, pinned string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		var vs []string
		for v := range targets {
			if semver.IsValid(v) && semver.Compare(v, pinned) > 0 {
				vs = append(vs, v)
			}
		}
		semver.Sort(vs)
		if len(vs) == 0 {
			return nil, fmt.Errorf("no version to try: %s names none newer than %s; list versions such as v1.6.1", TargetsFile, pinned)
		}
		return vs, nil
	}
	var vs []string
	for _, v := range strings.Split(list, ",") {
		if v = strings.TrimSpace(v); v == "" || slices.Contains(vs, v) {
			continue
		}
		if !semver.IsValid(v) {
			return nil, fmt.Errorf("%q is not a version such as v1.6.1", v)
		}
		if semver.Compare(v, pinned) <= 0 {
			return nil, fmt.Errorf("%s is not newer than the pinned %s: the status tries the series against newer upstream versions", v, pinned)
		}
		vs = append(vs, v)
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("%q names no version; list versions such as v1.6.1, or leave it out for %s's newer than %s", list, TargetsFile, pinned)
	}
	return vs, nil
}

// NestedFlag collects the values of a repeatable -nested path@version flag:
// nested module versions by module path.
type NestedFlag map[string]string

func (f NestedFlag) String() string { return "" }

// Set records one path@version.
func (f NestedFlag) Set(s string) error {
	path, version, ok := strings.Cut(s, "@")
	if !ok || path == "" || version == "" {
		return fmt.Errorf("want path@version, got %q", s)
	}
	f[path] = version
	return nil
}
