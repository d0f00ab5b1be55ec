package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
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

func TestApplyMaterializesUpstreamAndNested(t *testing.T) {
	p := newProject(t)
	r := p.mustRun("apply", "-allow-empty")
	if !strings.Contains(r.stdout, "downloading example.com/up@v1.0.0") {
		t.Errorf("no download progress in output:\n%s", r.stdout)
	}
	if got := p.read("nomad/api/api.go"); !strings.Contains(got, "package api") {
		t.Errorf("nested module not placed at api/: %q", got)
	}
	if got := p.read("nomad/build/keep.go"); got != "package build\n" {
		t.Errorf("file ignored by upstream's .gitignore missing: %q", got)
	}
	if got := p.git("log", "--format=%s", "upstream"); got != "upstream v1.0.0" {
		t.Errorf("base commit subject = %q", got)
	}
	// The base commit is a pure function of the pin.
	first := p.git("rev-parse", "upstream")
	other := newProject(t)
	other.mustRun("apply", "-allow-empty")
	if second := other.git("rev-parse", "upstream"); first != second {
		t.Errorf("base commit differs between two applies of the same pin: %s vs %s", first, second)
	}
}

func TestExtractIsDeterministicAndApplyIdempotent(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	files := p.patchFiles()
	if len(files) != 2 {
		t.Fatalf("patches = %v, want two", files)
	}
	for name, data := range files {
		if strings.Contains(data, "\r") {
			t.Errorf("%s has CR characters", name)
		}
		if !strings.HasPrefix(data, "From 0000000000000000000000000000000000000000 ") {
			t.Errorf("%s does not start with a zero commit hash", name)
		}
		if !regexpFullIndex.MatchString(data) {
			t.Errorf("%s has no full index line", name)
		}
	}
	head := p.git("rev-parse", "HEAD")
	r := p.mustRun("apply")
	if strings.Contains(r.stdout, "applying") {
		t.Errorf("second apply applied patches again:\n%s", r.stdout)
	}
	if got := p.git("rev-parse", "HEAD"); got != head {
		t.Errorf("idempotent apply moved HEAD from %s to %s", head, got)
	}
	// A fresh apply of the series re-exports byte-identically.
	p.mustRun("apply", "-force")
	r = p.mustRun("extract")
	if strings.Count(r.stdout, "unchanged") != 2 {
		t.Errorf("re-extract changed files:\n%s", r.stdout)
	}
	for name, data := range p.patchFiles() {
		if files[name] != data {
			t.Errorf("%s changed after apply and extract", name)
		}
	}
}

func TestApplyRefusesDirtyTree(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	edited := p.read("nomad/main.go") + "// local edit\n"
	p.write("nomad/main.go", edited)
	r := p.mustFail("apply")
	if !strings.Contains(r.stderr, "uncommitted changes") || !strings.Contains(r.stderr, "main.go") {
		t.Errorf("refusal does not name the uncommitted change:\n%s", r.stderr)
	}
	if got := p.read("nomad/main.go"); got != edited {
		t.Errorf("the uncommitted edit was lost")
	}
	// Even when patches/ changed, nothing is overwritten.
	p.write(filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch"), strings.Replace(p.read(filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch")), "200", "300", -1))
	p.mustFail("apply")
	if got := p.read("nomad/main.go"); got != edited {
		t.Errorf("the uncommitted edit was lost")
	}
	p.mustRun("apply", "-force")
	if got := p.read("nomad/main.go"); got == edited {
		t.Errorf("-force kept the edit")
	}
}

func TestApplyRefusesUnexportedCommits(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.commitEdit("lib/lib.go", "return 7 }", "return 70 }", "lib: make F7 return 70")
	head := p.git("rev-parse", "HEAD")
	r := p.mustFail("apply")
	if !strings.Contains(r.stderr, "0003-lib-make-F7-return-70.patch") || !strings.Contains(r.stderr, "nomadfork extract") {
		t.Errorf("refusal does not name the unexported commit and the fix:\n%s", r.stderr)
	}
	if got := p.git("rev-parse", "HEAD"); got != head {
		t.Errorf("refused apply moved HEAD")
	}
	// Amending an exported commit is unexported work too.
	p.git("reset", "-q", "--hard", "HEAD~1")
	p.commitEdit("lib/lib.go", "return 8 }", "return 80 }", "lib: more")
	p.git("reset", "-q", "--soft", "HEAD~2")
	p.git("commit", "-q", "-m", "lib: squashed\n\nBody.\n\nUpstream-Status: pending\nOrigin: x")
	p.mustFail("apply")
	p.mustRun("extract")
	p.mustRun("apply")
}

func TestApplyCorruptPatch(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.write(filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch"), "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"+
		"From: Dev <dev@example.com>\nSubject: [PATCH] broken\n\n---\ndiff --git a/lib/lib.go b/lib/lib.go\n"+
		"--- a/lib/lib.go\n+++ b/lib/lib.go\n@@ -1,3 +1,3 @@\n-no such line\n+x\n")
	r := p.mustFail("apply", "-force")
	if !strings.Contains(r.stderr, "0002-lib-make-F20-return-200.patch") {
		t.Errorf("failure does not name the patch:\n%s", r.stderr)
	}
	// git's own message, no talk of conflicts, and the way on.
	if !strings.Contains(r.stderr, "corrupt patch at line") || strings.Contains(r.stderr, "conflict") || !strings.Contains(r.stderr, "then run `nomadfork apply`") {
		t.Errorf("failure does not say what happened and how to go on:\n%s", r.stderr)
	}
	// 0001 stays applied, nothing half-applied is left.
	if got := p.git("log", "-1", "--format=%s"); got != "lib: make F5 return 50" {
		t.Errorf("HEAD = %q, want the first patch", got)
	}
	if got := p.git("status", "--porcelain"); got != "" {
		t.Errorf("work tree not clean after the failed patch: %q", got)
	}
	r = p.mustFail("extract")
	if !strings.Contains(r.stderr, "an apply stopped before 0002") || !strings.Contains(r.stderr, "nomadfork apply -abort") {
		t.Errorf("extract does not refuse during the stopped apply:\n%s", r.stderr)
	}
	r = p.mustFail("check", "-no-build")
	if !strings.Contains(r.stderr, "0002-lib-make-F20-return-200.patch") {
		t.Errorf("check does not name the corrupt patch:\n%s", r.stderr)
	}
}

func TestChecksumMismatchWritesNothing(t *testing.T) {
	p := newProject(t)
	pn, err := pin.Load(filepath.Join(p.dir, p.lineDir(), pin.DefaultFile))
	if err != nil {
		t.Fatal(err)
	}
	pn.Module.Sum = p.proxy.Sums[upPath+"@v1.0.1"]
	if err := pn.Save(filepath.Join(p.dir, p.lineDir(), pin.DefaultFile)); err != nil {
		t.Fatal(err)
	}
	r := p.mustFail("apply", "-allow-empty")
	if !strings.Contains(r.stderr, "checksum mismatch") || !strings.Contains(r.stderr, "example.com/up@v1.0.0") {
		t.Errorf("error does not explain the mismatch:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "nomad")); !os.IsNotExist(err) {
		t.Errorf("nomad/ was created despite the mismatch: %v", err)
	}
}

func TestMissingNestedModule(t *testing.T) {
	p := newProject(t)
	p.pin("v1.0.0", false)
	r := p.mustFail("apply", "-allow-empty")
	if !strings.Contains(r.stderr, "replaces example.com/up/api => ./api") || !strings.Contains(r.stderr, `"nested"`) {
		t.Errorf("error does not name the missing nested module and the fix:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "nomad")); !os.IsNotExist(err) {
		t.Errorf("nomad/ was created despite the missing module: %v", err)
	}
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

func TestConflictThenContinue(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
	// Upstream v1.0.2 changed F10 too: 0002 conflicts.
	p.repin("v1.0.2")
	r := p.mustFail("apply")
	containsAll(t, "conflict report", r.stderr, "0002-lib-make-F10-return-100.patch", "lib/lib.go", "apply -continue")
	r = p.mustFail("apply", "-continue")
	if !strings.Contains(r.stderr, "resolve these conflicts") {
		t.Errorf("continue with unresolved conflicts: %s", r.stderr)
	}
	p.resolve("lib/lib.go", "func F10() int { return 100 } // resolved\n")
	p.mustRun("apply", "-continue")
	if got := p.git("log", "-1", "--format=%s"); got != "lib: make F10 return 100" {
		t.Errorf("HEAD = %q after continue", got)
	}
	// The resumed commit is reproducible: committer date = author date.
	if got := strings.Split(p.git("log", "-1", "--format=%ad|%cd"), "|"); got[0] != got[1] {
		t.Errorf("author and committer dates differ after -continue: %v", got)
	}
	// The resolution is unexported work: a plain apply must keep it.
	r = p.mustFail("apply")
	if !strings.Contains(r.stderr, "0002-lib-make-F10-return-100.patch") {
		t.Errorf("apply would discard the resolution:\n%s", r.stderr)
	}
	r = p.mustRun("extract")
	if !strings.Contains(r.stdout, "updated   patches/v1.0.2/0002") {
		t.Errorf("extract did not save the resolution:\n%s", r.stdout)
	}
	p.mustRun("check", "-no-build")
}

func TestCheckDetectsOffset(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("check", "-no-build")
	// v1.0.1 adds three lines above everything: the patches still apply,
	// but only at an offset.
	p.repin("v1.0.1")
	r := p.mustFail("check", "-no-build")
	if !strings.Contains(r.stderr, "0001-lib-make-F5-return-50.patch: applies only with an offset") {
		t.Errorf("check does not report the offset by patch name:\n%s", r.stderr)
	}
	p.mustRun("apply", "-force")
	p.mustRun("extract")
	p.mustRun("check", "-no-build")
}

func TestCheckBuildsEveryPrefix(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F5() int { return 5 }", "func F5() int { return undefinedName }", "lib: break the build")
	p.commitEdit("lib/lib.go", "return undefinedName }", "return 5 }", "lib: fix the build again")
	p.mustRun("extract")
	r := p.mustFail("check")
	if !strings.Contains(r.stderr, "0001-lib-break-the-build.patch: series prefix 1..1 does not build") {
		t.Errorf("check does not name the prefix that breaks the build:\n%s", r.stderr)
	}
}

// check -tip-only builds the whole series only: a prefix that does not
// build but is fixed later passes, and a series whose tip does not build
// fails, naming the last patch.
func TestCheckTipOnly(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F5() int { return 5 }", "func F5() int { return undefinedName }", "lib: break the build")
	p.commitEditWith("lib/lib.go", "return undefinedName }", "return 5 }", "lib: fix the build again", "Depends-On: 0001")
	p.mustRun("extract")
	r := p.mustRun("check", "-tip-only")
	if strings.Contains(r.stdout, "building prefix 1..1 ") || !strings.Contains(r.stdout, "building prefix 1..2 ") {
		t.Errorf("check -tip-only did not build the whole series only:\n%s", r.stdout)
	}
	p.commitEditWith("lib/lib.go", "func F5() int { return 5 }", "func F5() int { return undefinedName }", "lib: break the build at the tip", "Depends-On: 0002")
	p.mustRun("extract")
	r = p.mustFail("check", "-tip-only")
	if !strings.Contains(r.stderr, "0003-lib-break-the-build-at-the-tip.patch: series prefix 1..3 does not build") {
		t.Errorf("check -tip-only does not name the tip that breaks the build:\n%s", r.stderr)
	}
	p.mustFail("check", "-tip-only", "-no-build")
}

func TestCheckLintsMetadata(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	content := p.read("nomad/lib/lib.go")
	p.write("nomad/lib/lib.go", strings.Replace(content, "return 5 }", "return 6 }", 1))
	p.git("commit", "-q", "-a", "-m", "lib: no trailers\n\nBody.")
	p.mustRun("extract")
	r := p.mustFail("check", "-no-build")
	if !strings.Contains(r.stderr, "missing Upstream-Status") || !strings.Contains(r.stderr, "missing Origin") {
		t.Errorf("check does not report missing metadata:\n%s", r.stderr)
	}
}

func TestExtractGuards(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.patchFiles()
	// The work tree at the bare base would delete every patch.
	p.git("reset", "-q", "--hard", "upstream")
	r := p.mustFail("extract")
	if !strings.Contains(r.stderr, "refusing to delete every patch") {
		t.Errorf("extract of an empty series: %s", r.stderr)
	}
	if got := p.patchFiles(); len(got) != len(before) {
		t.Errorf("patches changed: %v", got)
	}
	p.git("branch", "-D", "upstream")
	r = p.mustFail("extract")
	if !strings.Contains(r.stderr, `no "upstream" branch`) {
		t.Errorf("extract without base ref: %s", r.stderr)
	}
}

func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"frobnicate"}, &out, &errb); code != 2 {
		t.Errorf("unknown command exit = %d, want 2", code)
	}
	if code := run(context.Background(), []string{"-C", t.TempDir(), "apply"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "patches/default-line not found") {
		t.Errorf("apply outside a repository: %d %s", code, errb.String())
	}
}

var regexpFullIndex = regexp.MustCompile(`(?m)^index [0-9a-f]{40}\.\.[0-9a-f]{40}`)

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
