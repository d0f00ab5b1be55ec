// Package contract prepares the tree for the contract check: the patched
// series with upstream's own version of every _test.go file the series
// modifies or deletes, so that upstream's unchanged tests run against the
// patched production code. The series' new test files stay, except where
// they no longer compile next to upstream's (they collide with upstream's
// helpers or need the series' versions of the restored files).
package contract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/revdeps"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/verdict"
)

// Tree is a prepared contract tree.
type Tree struct {
	// Dir is the tree, a linked work tree of the work tree's repository;
	// Cleanup removes it.
	Dir     string
	Cleanup func()
	// Packages are the ./dir patterns of the packages whose test files
	// were restored.
	Packages []string
	// Restored are the test files put back to upstream's version.
	Restored []string
	// LeftOut are the series' new test files removed because the
	// package's tests did not compile with them.
	LeftOut []string
	// Kept are the tests, as file:Test, that a Changes-Test trailer names
	// and that therefore keep the series' version inside upstream's file.
	Kept []string
	// Broken are the packages whose upstream tests do not compile against
	// the patched code even without the series' new test files; they are
	// not in Packages.
	Broken []*Problem
	// Skipped are the ./dir patterns of packages with restored test files
	// that Prepare's only left out.
	Skipped []string
}

// Problem is returned when upstream's tests of a package do not compile
// against the patched code even without the series' new test files: the
// series broke an API upstream's tests use.
type Problem struct {
	Package string
	Errors  []string
}

func (p *Problem) Error() string {
	return fmt.Sprintf("upstream's unchanged tests of %s do not compile against the patched code (the series changes an API they use; keep it, or change the test in the patch and name it with Changes-Test):\n\t%s",
		p.Package, strings.Join(p.Errors, "\n\t"))
}

// Prepare makes dir a detached scratch work tree of repo at head with upstream's
// (base's) test files restored, and makes sure every restored package's
// tests compile: those that do not are moved from Packages to Broken.
// changed maps package directories (client/allocrunner) to the tests the
// series declares deliberately changed (Changes-Test): in a restored file,
// those functions keep the series' version.
//
// only, if not empty, limits the packages to those in or under these
// directories (client, nomad/structs); the others restored are listed in
// Skipped.
func Prepare(ctx context.Context, repo *git.Repo, base, head, dir string, changed map[string][]string, only []string, log io.Writer) (*Tree, error) {
	wt, cleanup, err := repo.Scratch(ctx, dir, head)
	if err != nil {
		return nil, err
	}
	tr := &Tree{Dir: wt.Dir, Cleanup: cleanup}
	if err := tr.prepare(ctx, wt, base, head, changed, only, log); err != nil {
		cleanup()
		return nil, err
	}
	return tr, nil
}

func (tr *Tree) prepare(ctx context.Context, wt *git.Repo, base, head string, changed map[string][]string, only []string, log io.Writer) error {
	lines, err := wt.Lines(ctx, "diff", "--name-status", "--no-renames", base, head)
	if err != nil {
		return err
	}
	added := map[string][]string{} // package dir -> the series' new test files
	restoredDirs := map[string]bool{}
	for _, l := range lines {
		status, file, ok := strings.Cut(l, "\t")
		if !ok || !strings.HasSuffix(file, "_test.go") {
			continue
		}
		dir := path.Dir(file)
		switch status {
		case "A":
			added[dir] = append(added[dir], file)
		case "M", "D":
			if _, err := wt.Run(ctx, "checkout", base, "--", file); err != nil {
				return fmt.Errorf("restoring upstream's %s: %w", file, err)
			}
			tr.Restored = append(tr.Restored, file)
			restoredDirs[dir] = true
			if status == "M" && len(changed[dir]) > 0 {
				if err := tr.keepChanged(ctx, wt, head, file, changed[dir]); err != nil {
					return err
				}
			}
		}
	}
	for dir := range restoredDirs {
		if !under(dir, only) {
			tr.Skipped = append(tr.Skipped, "./"+dir)
			continue
		}
		tr.Packages = append(tr.Packages, "./"+dir)
	}
	sort.Strings(tr.Packages)
	sort.Strings(tr.Skipped)
	var ok []string
	for _, pkg := range tr.Packages {
		err := tr.compile(ctx, pkg, added[strings.TrimPrefix(pkg, "./")], log)
		var prob *Problem
		switch {
		case errors.As(err, &prob):
			tr.Broken = append(tr.Broken, prob)
		case err != nil:
			return err
		default:
			ok = append(ok, pkg)
		}
	}
	tr.Packages = ok
	sort.Strings(tr.LeftOut)
	return nil
}

var fileRE = regexp.MustCompile(`([A-Za-z0-9_./-]+_test\.go):[0-9]+`)

// compile type-checks pkg's tests; while they fail, it leaves out first
// the series' new test files the errors name, then all of them.
func (tr *Tree) compile(ctx context.Context, pkg string, added []string, log io.Writer) error {
	left := append([]string(nil), added...)
	for step := 0; ; step++ {
		errs, err := revdeps.Compile(ctx, tr.Dir, []string{pkg})
		if err != nil || len(errs) == 0 {
			return err
		}
		var drop []string
		if step == 0 {
			named := map[string]bool{}
			for _, e := range errs {
				for _, m := range fileRE.FindAllStringSubmatch(e, -1) {
					named[strings.TrimPrefix(m[1], "./")] = true
				}
			}
			for _, f := range left {
				if named[f] {
					drop = append(drop, f)
				}
			}
		}
		if len(drop) == 0 && step <= 1 {
			drop = left
			step = 1
		}
		if len(drop) == 0 {
			return &Problem{Package: pkg, Errors: errs}
		}
		for _, f := range drop {
			if err := os.Remove(filepath.Join(tr.Dir, filepath.FromSlash(f))); err != nil {
				return err
			}
			fmt.Fprintf(log, "contract: leaving out the series' new %s: the package's tests do not compile with it next to upstream's\n", f)
			tr.LeftOut = append(tr.LeftOut, f)
		}
		left = verdict.Subtract(left, drop)
	}
}

// keepChanged puts the series' version of the named tests into the
// restored upstream file.
func (tr *Tree) keepChanged(ctx context.Context, wt *git.Repo, head, file string, tests []string) error {
	series, err := wt.Run(ctx, "show", head+":"+file)
	if err != nil {
		return err
	}
	path := filepath.Join(tr.Dir, filepath.FromSlash(file))
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, names, err := splice(src, []byte(series), tests)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(names) == 0 {
		return nil
	}
	for _, n := range names {
		tr.Kept = append(tr.Kept, file+":"+n)
	}
	return os.WriteFile(path, out, 0o644)
}

// under reports whether dir is one of dirs or under one of them; every dir
// is when dirs is empty.
func under(dir string, dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	for _, d := range dirs {
		d = strings.Trim(d, "/")
		if dir == d || strings.HasPrefix(dir, d+"/") {
			return true
		}
	}
	return false
}
