package main

// Fault tests: each case of issue 13's table, against the fixture proxy.
// Every case asserts the exit code, the message, and that the pin,
// patches/, CHANGELOG.md and the work tree's commits are unchanged.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/lockfile"
)

// cancelOn is an output stream that cancels a context once the output
// contains a marker: an interruption at a known step.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(b)
	if strings.Contains(c.buf.String(), c.marker) {
		c.cancel()
	}
	return len(b), nil
}

// interrupt runs nomadfork and interrupts it when its output shows marker.
func (p *project) interrupt(marker string, args ...string) result {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{marker: marker, cancel: cancel}
	var stderr bytes.Buffer
	code := run(ctx, append([]string{"-C", p.dir}, args...), out, &stderr)
	return result{code, out.buf.String(), stderr.String()}
}

func (p *project) expect(r result, code int, wants ...string) {
	p.t.Helper()
	if r.code != code {
		p.t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(r.stderr, w) {
			p.t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
		}
	}
}

// stoppedRebase makes a rebase stop at a conflict and returns the snapshot
// from before it.
func stoppedRebase(t *testing.T) (*project, snapshot) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
	before := p.snapshot()
	p.expect(p.nomadfork("rebase", "-onto", "v1.0.2"), 1, "conflicts", "rebase -continue", "rebase -abort")
	return p, before
}

func TestFaultRebaseWhileRebaseStopped(t *testing.T) {
	p, before := stoppedRebase(t)
	p.expect(p.nomadfork("rebase", "-onto", "v1.1.0"), 1, "a rebase onto v1.0.2 is stopped at a conflict in 0001-lib-make-F10-return-100.patch", "nomadfork rebase -continue", "nomadfork rebase -abort")
	p.mustRun("rebase", "-abort")
	p.mustEqual(before)
}

func TestFaultRebaseWithUncommittedChanges(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.write("nomad/main.go", p.read("nomad/main.go")+"// local\n")
	before := p.snapshot()
	p.expect(p.nomadfork("rebase", "-onto", "v1.0.1"), 1, "uncommitted changes", "main.go")
	p.mustEqual(before)
}

func TestFaultApplyDuringStoppedRebase(t *testing.T) {
	p, before := stoppedRebase(t)
	stopped := p.git("rev-parse", "HEAD")
	for _, args := range [][]string{{"apply"}, {"apply", "-continue"}, {"extract"}, {"export"}, {"drop", "0001", "-applied-upstream", "v1.1.0"}} {
		r := p.nomadfork(args...)
		p.expect(r, 1, "a rebase onto v1.0.2 is stopped", "nomadfork rebase -continue", "nomadfork rebase -abort")
		if strings.Contains(r.stderr, "-force") || strings.Contains(r.stderr, "git am --abort") {
			t.Errorf("%v suggests a command that loses work:\n%s", args, r.stderr)
		}
		if got := p.git("rev-parse", "HEAD"); got != stopped {
			t.Fatalf("%v moved HEAD", args)
		}
	}
	// -force aborts the rebase first: pin, patches/ and CHANGELOG.md as
	// before, and nothing is left to continue.
	r := p.mustRun("apply", "-force")
	if !strings.Contains(r.stdout, "aborted the stopped rebase") {
		t.Errorf("apply -force did not say it aborted the rebase:\n%s", r.stdout)
	}
	p.mustEqual(before)
	p.expect(p.nomadfork("rebase", "-continue"), 1, "no rebase in progress")
	p.mustEqual(before)
}

func TestFaultGitAmAbortDuringRebase(t *testing.T) {
	p, before := stoppedRebase(t)
	p.git("am", "--abort")
	p.expect(p.nomadfork("rebase", "-continue"), 1, "is gone", "nomadfork rebase -abort")
	if p.read(filepath.Join(p.lineDir(), "upstream.json")) != before.pin || p.read("CHANGELOG.md") != before.changelog || len(p.patchFiles()) != 1 {
		t.Fatal("pin, CHANGELOG.md or patches/ changed")
	}
	p.mustRun("rebase", "-abort")
	p.mustEqual(before)
}

func TestFaultStaleImportIndexLock(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	// What an import killed by Ctrl-C used to leave, and what an import
	// stopped at once by a second Ctrl-C leaves (trial 5's U-b).
	stale := []string{"nomadfork-import.index.lock", "nomadfork-import-123.index", "nomadfork-import-123.index.lock"}
	for _, f := range stale {
		p.write(filepath.Join("nomad", ".git", f), "")
	}
	p.mustRun("apply")
	p.mustRun("check", "-no-build")
	p.mustRun("status", "-against", "v1.0.1")
	p.mustEqual(before)
	for _, f := range stale {
		if _, err := os.Stat(filepath.Join(p.dir, "nomad", ".git", f)); !os.IsNotExist(err) {
			t.Errorf("stale import file %s still there: %v", f, err)
		}
	}
}

func TestFaultInterruptedImport(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	r := p.interrupt("==> importing upstream", "apply", "-force")
	// The advice keeps -force (TestInterruptedApplyForceAdvisesForce).
	p.expect(r, exitInterrupted, "interrupted during importing upstream v1.0.0", "run `nomadfork apply -force` to resume")
	p.mustEqual(before)
	matches, _ := filepath.Glob(filepath.Join(p.dir, "nomad", ".git", "nomadfork-import*"))
	if len(matches) > 0 {
		t.Errorf("import left %v", matches)
	}
	p.mustRun("apply", "-force")
	p.mustEqual(before)
}

func TestFaultToolLock(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	lock := filepath.Join(p.dir, "out", "nomadfork.lock")
	// A live holder (this process): the second verb refuses.
	release, err := lockfile.Acquire(lock, "rebase", func(lockfile.Stale) {})
	if err != nil {
		t.Fatal(err)
	}
	p.expect(p.nomadfork("apply"), 1, "`nomadfork rebase` (pid", "wait for it")
	release()
	// A dead holder: cleared with a message.
	data, _ := json.Marshal(lockfile.Holder{PID: 1 << 30, Verb: "extract"})
	p.write("out/nomadfork.lock", string(data))
	r := p.mustRun("apply")
	if !strings.Contains(r.stderr, "removed a stale lock: `nomadfork extract`") {
		t.Errorf("stale lock not reported:\n%s", r.stderr)
	}
	p.mustEqual(before)
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("lock not released: %v", err)
	}
}

func TestFaultMissingPatches(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	away := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(p.dir, p.lineDir(), "*.patch"))
	for _, f := range files {
		if err := os.Rename(f, filepath.Join(away, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	for _, verb := range []string{"apply", "check"} {
		p.expect(p.nomadfork(verb), 1, "the series is empty", "holds no NNNN-subject.patch files", "-allow-empty")
	}
	// export has no -allow-empty: it does not advise it.
	r := p.nomadfork("export")
	p.expect(r, 1, "the series is empty", "holds no NNNN-subject.patch files", "nothing to export", "git checkout -- patches/v1.0.0")
	if strings.Contains(r.stderr, "-allow-empty") {
		t.Errorf("export advises -allow-empty, which it rejects:\n%s", r.stderr)
	}
	for _, f := range files {
		if err := os.Rename(filepath.Join(away, filepath.Base(f)), f); err != nil {
			t.Fatal(err)
		}
	}
	p.mustEqual(before)
}

func TestFaultExtractDetachedHead(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.git("checkout", "-q", "HEAD~1")
	before := p.snapshot()
	// HEAD has no commits of its own: nothing to pick onto the branch.
	r := p.nomadfork("extract")
	p.expect(r, 1, "is detached", "not the tip of the \"fork\" branch", "checkout fork")
	if strings.Contains(r.stderr, "cherry-pick") {
		t.Errorf("extract advises a cherry-pick of no commits:\n%s", r.stderr)
	}
	p.mustEqual(before)
}

// A commit made on a detached HEAD on top of the fork branch: extract's
// advice keeps it (the branch moves to HEAD), and the next extract makes
// it a patch. Advising `git checkout fork` left it behind.
func TestFaultExtractDetachedCommitKept(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.git("checkout", "-q", "--detach", "HEAD")
	p.commitFile("lib/detached.go", "package lib\n", "lib: a commit on a detached HEAD")
	before := p.snapshot()
	r := p.nomadfork("extract")
	p.expect(r, 1, "is detached", "checkout -B fork")
	p.mustEqual(before)
	p.git("checkout", "-q", "-B", "fork")
	r = p.mustRun("extract")
	if !strings.Contains(r.stdout, "0003") {
		t.Errorf("the detached commit did not become 0003:\n%s", r.stdout)
	}
}

func TestFaultExportRemovesStaleBranches(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("export")
	p.git("reset", "-q", "--hard", "HEAD~1")
	p.mustRun("extract")
	r := p.mustRun("export")
	if got := p.git("branch", "--list", "export/*", "--format=%(refname:short)"); got != "export/0001-lib-make-F5-return-50" {
		t.Errorf("export branches = %q\n%s", got, r.stdout)
	}
}

func TestFaultChangedContextLine(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	name := filepath.Join(p.lineDir(), "0002-lib-make-F20-return-200.patch")
	p.write(name, strings.Replace(p.read(name), " // F20 returns 20.", " // F20 returns twenty.", 1))
	before := p.snapshot()
	r := p.nomadfork("apply", "-force")
	p.expect(r, 1, "0002-lib-make-F20-return-200.patch does not apply: error:", "then run `nomadfork apply`")
	if strings.Contains(r.stderr, "conflict") || strings.Contains(r.stderr, "git add") {
		t.Errorf("reports a conflict where there is none:\n%s", r.stderr)
	}
	if p.read(filepath.Join(p.lineDir(), "upstream.json")) != before.pin || p.read(name) != before.patches["0002-lib-make-F20-return-200.patch"] {
		t.Error("pin or patch changed")
	}
	if got := p.git("status", "--porcelain"); got != "" {
		t.Errorf("half-applied patch left: %q", got)
	}
	p.expect(p.nomadfork("apply", "-continue"), 1, "does not apply")
}

func TestFaultInterruptedCheck(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	r := p.interrupt("==> compiling prefix 1..1", "check")
	p.expect(r, exitInterrupted, "interrupted during compiling prefix 1..1", "run `nomadfork check` to resume")
	if strings.Contains(r.stderr, "does not build") {
		t.Errorf("check blames the patch for the interruption:\n%s", r.stderr)
	}
	p.mustEqual(before)
}

func TestFaultInterruptedAmResumesReproducibly(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	// The reference: both patches applied by a clean run.
	p.git("reset", "-q", "--hard", "upstream")
	p.mustRun("apply")
	before := p.snapshot()
	p.git("reset", "-q", "--hard", "HEAD~1")
	r := p.interrupt("applying 0002", "apply")
	p.expect(r, exitInterrupted, "interrupted during applying 0002-lib-make-F20-return-200.patch", "run `nomadfork apply` to resume")
	if got := p.git("log", "-1", "--format=%s"); got != "lib: make F5 return 50" {
		t.Errorf("HEAD after the interruption = %q", got)
	}
	p.expect(p.nomadfork("extract"), 1, "an apply stopped before 0002", "nomadfork apply")
	p.mustRun("apply")
	// The same commits as the clean run: committer date = author date.
	p.mustEqual(before)
	if got := p.git("log", "-1", "--format=%ad|%cd"); strings.Split(got, "|")[0] != strings.Split(got, "|")[1] {
		t.Errorf("author and committer dates differ: %s", got)
	}
}

func TestFaultDropValidates(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	before := p.snapshot()
	p.expect(p.nomadfork("drop", "0002", "-applied-upstream", "v0.9.0"), 1, "not newer than the pinned v1.0.0")
	p.expect(p.nomadfork("drop", "0002", "-applied-upstream", "v1.0.0"), 1, "not newer than the pinned v1.0.0")
	p.expect(p.nomadfork("drop", "0002", "-applied-upstream", "v1.9.0"), 1, "-applied-upstream v1.9.0")
	p.expect(p.nomadfork("drop", "0002", "-applied-upstream", "v1.1.0", "-pr", "not-a-url"), 2, `-pr "not-a-url" is not an https URL`)
	p.mustEqual(before)
}

// A baseline needs the series applied: what it touches decides the
// packages raced and how they are grouped.
func TestBaselineRefusesWithoutAppliedSeries(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	before := p.snapshot()
	p.expect(p.nomadfork("baseline", "-runs", "1"), 1, "holds no applied series", "run `nomadfork apply` first")
	p.mustEqual(before)
}
