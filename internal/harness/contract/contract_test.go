package contract

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

type repo struct {
	t *testing.T
	*git.Repo
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " not installed")
		}
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	// No proxy serves the pinned toolchain: the installed go runs (on a
	// machine without go1.26.11 in its module cache, the pinned one
	// failed to download).
	t.Setenv(build.ToolchainOverride, "local")
	r := &repo{t, &git.Repo{Dir: t.TempDir(), Env: []string{"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com"}}}
	r.run("init", "--quiet", "--initial-branch=main")
	r.write("go.mod", "module ex\n\ngo 1.21\n")
	return r
}

func (r *repo) run(args ...string) string {
	r.t.Helper()
	out, err := r.Run(context.Background(), args...)
	if err != nil {
		r.t.Fatal(err)
	}
	return out
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	path := filepath.Join(r.Dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) string {
	r.t.Helper()
	r.run("add", "-A")
	r.run("commit", "--quiet", "-m", msg)
	return r.run("rev-parse", "HEAD")[:40]
}

func TestPrepare(t *testing.T) {
	r := newRepo(t)
	r.write("p/p.go", "package p\n\nfunc F() int { return 1 }\n")
	r.write("p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F() != 1 {\n\t\tt.Fatal(F())\n\t}\n}\n")
	r.write("q/q.go", "package q\n\nfunc G() int { return 2 }\n")
	r.write("q/q_test.go", "package q\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) { _ = G() }\n")
	base := r.commit("upstream")
	// The series changes F's contract, edits upstream's test to match and
	// adds a test file that uses a helper only its edited test defines.
	r.write("p/p.go", "package p\n\nfunc F() int { return 10 }\n")
	r.write("p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc want() int { return 10 }\n\nfunc TestF(t *testing.T) {\n\tif F() != want() {\n\t\tt.Fatal(F())\n\t}\n}\n")
	r.write("p/new_test.go", "package p\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) { _ = want() }\n")
	r.write("p/other_test.go", "package p\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) { _ = F() }\n")
	head := r.commit("series")

	var log bytes.Buffer
	dir := filepath.Join(t.TempDir(), "contract")
	tr, err := Prepare(context.Background(), r.Repo, base, head, dir, nil, nil, &log)
	if err != nil {
		t.Fatalf("Prepare: %v\n%s", err, log.String())
	}
	defer tr.Cleanup()
	if want := []string{"./p"}; !reflect.DeepEqual(tr.Packages, want) {
		t.Errorf("Packages = %v, want %v", tr.Packages, want)
	}
	if want := []string{"p/p_test.go"}; !reflect.DeepEqual(tr.Restored, want) {
		t.Errorf("Restored = %v, want %v", tr.Restored, want)
	}
	// new_test.go needs the series' helper: left out; other_test.go stays.
	if want := []string{"p/new_test.go"}; !reflect.DeepEqual(tr.LeftOut, want) {
		t.Errorf("LeftOut = %v, want %v", tr.LeftOut, want)
	}
	got, err := os.ReadFile(filepath.Join(dir, "p", "p_test.go"))
	if err != nil || !bytes.Contains(got, []byte("F() != 1")) {
		t.Errorf("p_test.go is not upstream's: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "p", "other_test.go")); err != nil {
		t.Errorf("the series' compiling new test file was removed: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "p", "p.go")); !bytes.Contains(got, []byte("return 10")) {
		t.Errorf("production code is not the series': %q", got)
	}

	// A series that removes an API upstream's tests use breaks the contract.
	r.write("q/q.go", "package q\n\nfunc H() int { return 2 }\n")
	r.write("q/q_test.go", "package q\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) { _ = H() }\n")
	head = r.commit("series breaks q's API")
	tr, err = Prepare(context.Background(), r.Repo, base, head, dir, nil, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Broken) != 1 || tr.Broken[0].Package != "./q" || !strings.Contains(tr.Broken[0].Error(), "undefined: G") {
		t.Fatalf("Broken = %v, want ./q's undefined G", tr.Broken)
	}
	if want := []string{"./p"}; !reflect.DeepEqual(tr.Packages, want) {
		t.Errorf("Packages = %v, want %v: the broken package must not run", tr.Packages, want)
	}

	// Declaring TestH deliberately changed keeps the series' form of it
	// (q's upstream file had TestG; the series renamed it, so nothing
	// matches and q stays broken), while a declared change of TestG in a
	// series that keeps its name makes q compile.
	r.write("q/q_test.go", "package q\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) { _ = H() }\n\nfunc TestMore(t *testing.T) {}\n")
	head = r.commit("series changes TestG deliberately")
	tr, err = Prepare(context.Background(), r.Repo, base, head, dir, map[string][]string{"q": {"TestG"}}, nil, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Broken) != 0 || !reflect.DeepEqual(tr.Kept, []string{"q/q_test.go:TestG"}) {
		t.Fatalf("Broken = %v, Kept = %v; want q to compile with the series' TestG", tr.Broken, tr.Kept)
	}
	got, _ = os.ReadFile(filepath.Join(dir, "q", "q_test.go"))
	if !bytes.Contains(got, []byte("_ = H()")) || bytes.Contains(got, []byte("TestMore")) {
		t.Errorf("q_test.go is not upstream's with the series' TestG:\n%s", got)
	}
}

// TestPrepareOnly asserts that only limits the packages run to those in or
// under its directories and lists the others as skipped, so make test can
// leave the server package's long suite to make test-full.
func TestPrepareOnly(t *testing.T) {
	r := newRepo(t)
	for _, dir := range []string{"a", "a/b", "ab", "c"} {
		pkg := path.Base(dir)
		r.write(dir+"/x.go", "package "+pkg+"\n\nfunc F() int { return 1 }\n")
		r.write(dir+"/x_test.go", "package "+pkg+"\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { _ = F() }\n")
	}
	base := r.commit("upstream")
	for _, dir := range []string{"a", "a/b", "ab", "c"} {
		pkg := path.Base(dir)
		r.write(dir+"/x_test.go", "package "+pkg+"\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { _ = F() + 1 }\n")
	}
	head := r.commit("series")

	var log bytes.Buffer
	tr, err := Prepare(context.Background(), r.Repo, base, head, filepath.Join(t.TempDir(), "contract"), nil, []string{"a", "c/"}, &log)
	if err != nil {
		t.Fatalf("Prepare: %v\n%s", err, log.String())
	}
	defer tr.Cleanup()
	if want := []string{"./a", "./a/b", "./c"}; !reflect.DeepEqual(tr.Packages, want) {
		t.Errorf("Packages = %v, want %v", tr.Packages, want)
	}
	if want := []string{"./ab"}; !reflect.DeepEqual(tr.Skipped, want) {
		t.Errorf("Skipped = %v, want %v", tr.Skipped, want)
	}
}
