package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// TestMain lets the test binary be the sandbox's init, as nomadfork is:
// the sandbox re-executes its own executable, which in a test is this one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitArg {
		os.Exit(sandbox.Init(os.Args[2:]))
	}
	if os.Getenv(testMainEnv) == "1" {
		// The interrupt tests run the test binary as nomadfork, to send
		// it a real SIGINT.
		os.Args = append([]string{"nomadfork"}, os.Args[1:]...)
		hangForTest()
		main()
	}
	os.Exit(m.Run())
}

type project struct {
	t     *testing.T
	dir   string
	proxy *fixture.Proxy
}

func newProject(t *testing.T) *project {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	p := &project{t: t, dir: t.TempDir(), proxy: fixture.NewProxy(t)}
	for _, m := range upstreamModules() {
		p.proxy.Add(t, m)
	}
	if err := seedProject(p.dir, p.proxy.Sums); err != nil {
		t.Fatal(err)
	}
	return p
}

// pin writes upstream.json for version, with or without the nested api.
func (p *project) pin(version string, withAPI bool) {
	p.t.Helper()
	if err := writePin(p.dir, p.proxy.Sums, version, withAPI); err != nil {
		p.t.Fatal(err)
	}
}

// repin pins the default line to version instead, as a maintainer
// renaming the line by hand would: its directory moves to patches/<version>.
func (p *project) repin(version string) {
	p.t.Helper()
	if err := os.Rename(filepath.Join(p.dir, p.lineDir()), filepath.Join(p.dir, "patches", version)); err != nil {
		p.t.Fatal(err)
	}
	p.write("patches/default-line", version+"\n")
	p.pin(version, true)
}

// lineDir is the default line's directory, relative to the project.
func (p *project) lineDir() string {
	p.t.Helper()
	return filepath.Join("patches", strings.TrimSpace(p.read("patches/default-line")))
}

func (p *project) write(name, content string) {
	p.t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *project) read(name string) string {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		p.t.Fatal(err)
	}
	return string(data)
}

type result struct {
	code           int
	stdout, stderr string
}

// syncBuffer is a bytes.Buffer safe for concurrent writes: the harness
// writes to the command's output while os/exec copies a child's output
// into it (with *os.File streams, as in nomadfork itself, no copy runs).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (p *project) nomadfork(args ...string) result {
	p.t.Helper()
	var stdout, stderr syncBuffer
	code := run(context.Background(), append([]string{"-C", p.dir}, args...), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

func (p *project) mustRun(args ...string) result {
	p.t.Helper()
	r := p.nomadfork(args...)
	if r.code != 0 {
		p.t.Fatalf("nomadfork %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func (p *project) mustFail(args ...string) result {
	p.t.Helper()
	r := p.nomadfork(args...)
	if r.code == 0 {
		p.t.Fatalf("nomadfork %s succeeded, want failure\nstdout:\n%s", strings.Join(args, " "), r.stdout)
	}
	return r
}

// git runs git in the work tree as a user would.
func (p *project) git(args ...string) string {
	p.t.Helper()
	return p.gitIn("nomad", args...)
}

// gitIn runs git in dir, relative to the project, as a user would.
func (p *project) gitIn(dir string, args ...string) string {
	p.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Dev", "-c", "user.email=dev@example.com"}, args...)...)
	cmd.Dir = filepath.Join(p.dir, dir)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitEdit replaces old with new in a work tree file and commits it as
// an upstream-ready patch.
func (p *project) commitEdit(file, old, new, subject string) {
	p.t.Helper()
	p.commitEditWith(file, old, new, subject)
}

// resolve replaces the conflict in a work tree file with resolution and
// stages the file, as a user resolving a stopped apply or rebase would.
func (p *project) resolve(file, resolution string) {
	p.t.Helper()
	p.resolveIn("nomad", file, resolution)
}

// resolveIn is resolve in the work tree tree (relative to the project).
func (p *project) resolveIn(tree, file, resolution string) {
	p.t.Helper()
	path := filepath.Join(tree, file)
	content := p.read(path)
	start := strings.Index(content, "<<<<<<<")
	end := strings.Index(content, ">>>>>>>")
	if start < 0 || end < start {
		p.t.Fatalf("%s has no conflict markers", file)
	}
	end += strings.Index(content[end:], "\n") + 1
	p.write(path, content[:start]+resolution+content[end:])
	p.gitIn(tree, "add", file)
}

func (p *project) patchFiles() map[string]string {
	p.t.Helper()
	dir := p.lineDir()
	entries, _ := os.ReadDir(filepath.Join(p.dir, dir))
	out := map[string]string{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".patch") {
			out[e.Name()] = p.read(filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// twoPatches applies the empty series and records two patches.
func (p *project) twoPatches() {
	p.t.Helper()
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "return 20 }", "return 200 }", "lib: make F20 return 200")
	p.mustRun("extract")
}

func TestInterruptedApplyResumes(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("apply", "-force")
	first := p.git("rev-parse", "HEAD~1")
	// Simulate an apply killed after the first patch: HEAD has only 0001
	// and the state still lists 0002 as pending.
	p.git("reset", "-q", "--hard", "HEAD~1")
	statePath := filepath.Join(p.dir, "nomad", ".git", "nomadfork.json")
	var st map[string]any
	if err := json.Unmarshal([]byte(p.read(filepath.Join("nomad", ".git", "nomadfork.json"))), &st); err != nil {
		t.Fatal(err)
	}
	st["pending"] = []string{"0002-lib-make-F20-return-200.patch"}
	delete(st, "applied")
	data, _ := json.Marshal(st)
	if err := os.WriteFile(statePath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.mustRun("apply")
	if strings.Contains(r.stdout, "applying 0001") || !strings.Contains(r.stdout, "applying 0002") {
		t.Errorf("resume did not continue at 0002:\n%s", r.stdout)
	}
	if got := p.git("rev-parse", "HEAD~1"); got != first {
		t.Errorf("resume rewrote the first patch's commit")
	}
	r = p.mustRun("extract")
	if strings.Count(r.stdout, "unchanged") != 2 {
		t.Errorf("resumed series differs from patches/:\n%s", r.stdout)
	}
}

// containsAll reports every string of wants that out, described by what,
// lacks.
func containsAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}
