package revdeps

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not installed")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// No proxy serves the pinned toolchain: the installed go runs (on a
	// machine without go1.26.11 in its module cache, the pinned one
	// failed to download).
	t.Setenv(build.ToolchainOverride, "local")
	dir := t.TempDir()
	files["go.mod"] = "module ex\n\ngo 1.21\n"
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindAndCompile(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"p/p.go":      "package p\n\nfunc F() int { return 1 }\n",
		"p/p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { _ = F() }\n",
		// q imports p in production code; only its tests make it a
		// reverse dependency of r's tests.
		"q/q.go": "package q\n\nimport \"ex/p\"\n\nfunc G() int { return p.F() }\n",
		// r's production code does not import q; its external test does.
		"r/r.go":      "package r\n",
		"r/r_test.go": "package r_test\n\nimport (\n\t\"testing\"\n\n\t\"ex/q\"\n)\n\nfunc TestR(t *testing.T) { _ = q.G() }\n",
		// s has tests that import nothing of the series.
		"s/s.go":      "package s\n",
		"s/s_test.go": "package s\n\nimport \"testing\"\n\nfunc TestS(t *testing.T) {}\n",
		// x is excluded like ./client/... is.
		"x/x.go":      "package x\n\nimport \"ex/q\"\n\nvar _ = q.G\n",
		"x/x_test.go": "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	})
	ctx := context.Background()
	got, err := Find(ctx, dir, []string{"ex/p"}, []string{"ex/x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ex/p", "ex/r"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Find = %v, want %v", got, want)
	}
	if errs, err := Compile(ctx, dir, got); err != nil || len(errs) != 0 {
		t.Fatalf("Compile of a good tree = %v, %v", errs, err)
	}
	// The series renames p.F: r's tests no longer compile, through q.
	if err := os.WriteFile(filepath.Join(dir, "q/q.go"), []byte("package q\n\nimport \"ex/p\"\n\nfunc G() int { return p.F() }\n\nfunc H() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "r/r_test.go"), []byte("package r_test\n\nimport (\n\t\"testing\"\n\n\t\"ex/q\"\n)\n\nfunc TestR(t *testing.T) { _ = q.Gone() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errs, err := Compile(ctx, dir, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "r/r_test.go") || !strings.Contains(errs[0], "undefined: q.Gone") {
		t.Errorf("Compile = %q, want r_test.go's undefined q.Gone", errs)
	}
}
