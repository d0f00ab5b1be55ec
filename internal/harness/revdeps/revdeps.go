// Package revdeps finds the reverse dependencies of the series: the
// packages of the module whose tests import, directly or transitively, a
// package the series changes, and type-checks their tests.
package revdeps

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// Find returns the import paths of the packages of the module in dir
// (`go list ./...`) whose test binaries depend on one of changed (import
// paths), leaving out the packages under any of excluded (import path
// prefixes: "p" excludes p and p/...). A changed package counts as its own
// reverse dependency unless excluded.
func Find(ctx context.Context, dir string, changed, excluded []string) ([]string, error) {
	// With -test, go list adds a "p.test" package per package with tests
	// whose Deps are everything its test binary links, test variants
	// included ("q [p.test]").
	out, err := gocmd.Cmd{Dir: dir, Env: build.GoEnv()}.Output(ctx, "list", "-e", "-test", "-f", "{{.ImportPath}}\t{{join .Deps \" \"}}", "./...")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, c := range changed {
		want[c] = true
	}
	seen := map[string]bool{}
	var pkgs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		path, deps, _ := strings.Cut(sc.Text(), "\t")
		pkg, ok := strings.CutSuffix(path, ".test")
		if !ok || strings.Contains(path, " ") {
			if !strings.Contains(path, " ") && want[path] && !isExcluded(path, excluded) && !seen[path] {
				// A changed package without tests still gets compiled.
				seen[path] = true
				pkgs = append(pkgs, path)
			}
			continue
		}
		if isExcluded(pkg, excluded) || seen[pkg] {
			continue
		}
		hit := want[pkg]
		for _, d := range strings.Fields(deps) {
			if want[d] {
				hit = true
				break
			}
		}
		if hit {
			seen[pkg] = true
			pkgs = append(pkgs, pkg)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	sort.Strings(pkgs)
	return pkgs, nil
}

func isExcluded(pkg string, excluded []string) bool {
	for _, e := range excluded {
		if pkg == e || strings.HasPrefix(pkg, e+"/") {
			return true
		}
	}
	return false
}

// Compile type-checks pkgs and their tests in dir with `go vet -buildtag`:
// vet type-checks every package with its _test.go files (without linking
// or running anything), and the buildtag analyzer alone reports nothing
// on upstream, so every line it prints is a compile error the series
// causes. It returns those lines.
func Compile(ctx context.Context, dir string, pkgs []string) ([]string, error) {
	if len(pkgs) == 0 {
		return nil, nil
	}
	out, err := build.Go(ctx, dir, append([]string{"vet", "-buildtag"}, pkgs...)...)
	var errs []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		errs = append(errs, strings.TrimPrefix(line, "vet: "))
	}
	if err != nil && len(errs) == 0 {
		return nil, fmt.Errorf("go vet -buildtag in %s: %w", dir, err)
	}
	if err == nil {
		return nil, nil
	}
	return errs, nil
}
