package main

// The UNCLEAR cases of the independent trials of issue 21
// (docs/crash-safety.md): each works on the next run, but the message
// misled or a run raced with what an earlier one left.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"github.com/nomad-client-fork/nomad-client-fork/internal/workspace"
)

// markerWriter is an output stream that closes seen once the output
// contains marker.
type markerWriter struct {
	syncBuffer
	marker string
	once   sync.Once
	seen   chan struct{}
}

func newMarkerWriter(marker string) *markerWriter {
	return &markerWriter{marker: marker, seen: make(chan struct{})}
}

func (w *markerWriter) Write(b []byte) (int, error) {
	n, err := w.syncBuffer.Write(b)
	if strings.Contains(w.String(), w.marker) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// waitFor polls cond (every 5 ms, up to a minute): for what another
// process does.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// U1: nomadfork killed outright (SIGKILL) during apply leaves its `git am`
// running as an orphan. The next apply waits for that git to finish before
// it undoes the step; it used to undo it at once, racing the orphan, and
// failed with git's "Resolve operation not in progress" from `git am
// --quit` (or left the orphan's commit on top).
func TestCrashKilledApplyOrphanGit(t *testing.T) {
	p := newProject(t)
	p.graphSeries(true)
	os.RemoveAll(filepath.Join(p.dir, "nomad"))
	// A hook that holds the first `git am` until the test releases it:
	// a slow git am.
	ctl, hooks := t.TempDir(), t.TempDir()
	hook := "#!/bin/sh\n[ -e " + ctl + "/release ] && exit 0\n: > " + ctl + "/hung\n" +
		"while [ ! -e " + ctl + "/release ]; do sleep 0.01; done\n"
	if err := os.WriteFile(filepath.Join(hooks, "pre-applypatch"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	release := func() { os.WriteFile(filepath.Join(ctl, "release"), nil, 0o644) }
	t.Cleanup(release)

	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(os.Args[0], "-C", p.dir, "apply")
	cmd.Env = append(os.Environ(), testMainEnv+"=1",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+hooks)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = out, out // files: the orphan keeps them open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Process.Wait(); close(exited) }()
	waitFor(t, "the first git am to hang", func() bool {
		select {
		case <-exited:
			data, _ := os.ReadFile(out.Name())
			t.Fatalf("nomadfork apply ended before its git am hung:\n%s", data)
		default:
		}
		_, err := os.Stat(filepath.Join(ctl, "hung"))
		return err == nil
	})
	cmd.Process.Kill() // nomadfork only, not its git
	<-exited
	nomad := filepath.Join(p.dir, "nomad")
	if len(git.Orphans(nomad)) == 0 {
		t.Fatal("no orphaned git am after killing nomadfork")
	}

	// An orphan that outlasts the wait: refused, naming it and the way on.
	orphanWait = 100 * time.Millisecond
	r := p.nomadfork("apply")
	orphanWait = time.Minute
	p.expect(r, 1, "removed a stale lock", "waiting for git am", "still runs in "+nomad, "stop it (`kill ", "then run `nomadfork apply` again")

	stderr := newMarkerWriter("waiting for git am")
	var stdout syncBuffer
	done := make(chan int)
	go func() { done <- run(context.Background(), []string{"-C", p.dir, "apply"}, &stdout, stderr) }()
	var code int
	select {
	case <-stderr.seen:
		release()
		code = <-done
	case code = <-done:
		release()
	}
	waitFor(t, "the orphaned git am to end", func() bool { return len(git.Orphans(nomad)) == 0 })
	if code != 0 || !strings.Contains(stderr.String(), "waiting for git am") {
		t.Errorf("apply after the kill: exit %d, did it wait for the orphaned git am?\n%s", code, stderr.String())
	}
	containsAll(t, "apply after the kill", stderr.String(), "undid the interrupted `git am")
	if st := p.git("status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Errorf("work tree not clean:\n%s", st)
	}
	if n := p.git("rev-list", "--count", "upstream..HEAD"); n != "3" {
		t.Errorf("%s commits on upstream, want the 3 patches:\n%s", n, p.git("log", "--oneline", "upstream..HEAD"))
	}
	if r := p.mustRun("extract"); strings.Count(r.stdout, "unchanged") != 3 {
		t.Errorf("extract after the recovery:\n%s", r.stdout)
	}
}

// newLineStopped is a -new-line rebase onto v1.0.2 stopped at its
// conflict, resolved and staged: what `rebase -continue -line v1.0.2`
// goes on from.
func (p *project) newLineStopped() {
	p.t.Helper()
	p.conflictSeries()
	p.mustFail("rebase", "-onto", "v1.0.2", "-new-line")
	p.resolveIn("lines/v1.0.2/nomad", "lib/lib.go", "func F10() int { return 100 } // merged\n")
}

// U2: an interruption of `rebase -continue -line <new line>` while it
// looked up the line being made (its first git command) said `unknown
// line "v1.0.2"`: the cancelled lookup read as "no rebase in progress".
// It is an interruption, with the resume command, at every git command.
func TestCrashInterruptedNewLineLookup(t *testing.T) {
	for _, mode := range []string{hangLock, hangAfter} {
		t.Run(mode, func(t *testing.T) {
			p := newProject(t)
			f := installFakeGit(t)
			p.newLineStopped()
			r := p.interruptAt(f, "", 1, mode, "rebase", "-continue", "-line", "v1.0.2")
			if !f.fired() {
				t.Fatal("not interrupted")
			}
			p.expect(r, exitInterrupted, "interrupted during rebase", "run `nomadfork rebase -continue -line v1.0.2` to resume")
			if strings.Contains(r.stderr, "unknown line") {
				t.Errorf("an interruption reported as an unknown line:\n%s", r.stderr)
			}
			p.mustRun("rebase", "-continue", "-line", "v1.0.2")
			p.mustRun("check", "-no-build", "-line", "v1.0.2")
		})
	}
}

// Environment of a nomadfork run as a subprocess by the tests (see
// hangForTest).
const (
	// hangStepEnv: the command hangs, uninterruptibly, at the start of
	// the first progress step whose name contains this, as if it were
	// stuck in a long step; the file "hung" in ctlEnv says it does.
	hangStepEnv = "NOMADFORK_TEST_HANG_STEP"
	// ctlEnv is the directory of the files the hooks write: "hung", and
	// "first-signal" once the first signal cancelled the command.
	ctlEnv = "NOMADFORK_TEST_CTL"
)

// hangForTest installs, in a nomadfork run as a subprocess, the hooks
// hangStepEnv and ctlEnv ask for.
func hangForTest() {
	ctl := os.Getenv(ctlEnv)
	if ctl == "" {
		return
	}
	testHookFirstSignal = func() { os.WriteFile(filepath.Join(ctl, "first-signal"), nil, 0o644) }
	if step := os.Getenv(hangStepEnv); step != "" {
		progress.TestHookBegin = func(what string) {
			if strings.Contains(what, step) {
				os.WriteFile(filepath.Join(ctl, "hung"), nil, 0o644)
				select {}
			}
		}
	}
}

// U3: a second SIGINT close behind the first (a double Ctrl-C; `timeout
// -s INT` sends two) stopped nomadfork at once, silently, leaving
// out/nomadfork.lock. It still stops at once, but says what it stopped
// and how to resume, and releases the lock; the advised command recovers
// what the run left (here a scratch work tree, or a half-applied work
// tree) and succeeds.
func TestCrashDoubleSIGINT(t *testing.T) {
	for _, tc := range []struct {
		name, step string
		setup      func(p *project)
		verb       []string
		resume     string
	}{
		{"check", "applying 0002", func(p *project) { p.twoPatches() }, []string{"check", "-no-build"}, "nomadfork check -no-build"},
		{"apply", "applying 0002", func(p *project) {
			p.graphSeries(true)
			os.RemoveAll(filepath.Join(p.dir, "nomad"))
		}, []string{"apply"}, "nomadfork apply"},
		{"rebase-new-line", "rebasing 0002", func(p *project) { p.twoPatches() },
			[]string{"rebase", "-onto", "v1.1.0", "-new-line"}, "nomadfork rebase -continue -line v1.1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			tc.setup(p)
			ctl := t.TempDir()
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			cmd := exec.Command(os.Args[0], append([]string{"-C", p.dir}, tc.verb...)...)
			cmd.Env = append(os.Environ(), testMainEnv+"=1", ctlEnv+"="+ctl, hangStepEnv+"="+tc.step)
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			ctlFile := func(name string) func() bool {
				return func() bool {
					select {
					case err := <-exited:
						data, _ := os.ReadFile(out.Name())
						t.Fatalf("nomadfork %s ended (%v) before %s:\n%s", strings.Join(tc.verb, " "), err, name, data)
					default:
					}
					_, err := os.Stat(filepath.Join(ctl, name))
					return err == nil
				}
			}
			waitFor(t, "the command to hang at "+tc.step, ctlFile("hung"))
			cmd.Process.Signal(syscall.SIGINT)
			waitFor(t, "the first signal to cancel the command", ctlFile("first-signal"))
			cmd.Process.Signal(syscall.SIGINT)
			err = <-exited
			data, _ := os.ReadFile(out.Name())
			if cmd.ProcessState.ExitCode() != exitInterrupted {
				t.Errorf("exit %v, want %d\n%s", err, exitInterrupted, data)
			}
			containsAll(t, "output", string(data), "interrupted again, stopped at once during "+tc.step, "run `"+tc.resume+"` to resume")
			if p.exists("out/nomadfork.lock") {
				t.Errorf("out/nomadfork.lock left")
			}
			p.mustRun(strings.Fields(strings.TrimPrefix(tc.resume, "nomadfork "))...)
		})
	}
}

// failingGit puts first on PATH a git that fails the commands whose
// arguments contain match as git does on a full disk, and forwards the
// others; the returned function frees the space (forwards all).
func failingGit(t *testing.T, match string) (freed func()) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	bin := t.TempDir()
	script := "#!/bin/sh\ncase \" $* \" in *\"" + match + "\"*)\n" +
		"\techo 'error: unable to write new index file' >&2\n" +
		"\techo 'fatal: unable to write file lib/lib.go: No space left on device' >&2\n\texit 128;;\nesac\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() {
		if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nexec "+real+" \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// U4: a full disk during apply named the cause but no next step. The
// message says, after the cause, which file system to free space on and
// the command to run then, which works once there is space.
func TestCrashDiskFullNamesNextStep(t *testing.T) {
	for _, tc := range []struct{ name, match string }{
		{"git am", " am "},
		{"import", " add "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			p.graphSeries(true)
			os.RemoveAll(filepath.Join(p.dir, "nomad"))
			freed := failingGit(t, tc.match)
			r := p.nomadfork("apply")
			p.expect(r, 1, "disk full (no space left on device)", "free space on ", "the file system of "+filepath.Join(p.dir, "nomad"), "then run `nomadfork apply`")
			if !strings.HasPrefix(r.stderr, "nomadfork apply: disk full") || strings.Count(r.stderr, "disk full") != 1 {
				t.Errorf("the cause is not named first, once:\n%s", r.stderr)
			}
			if strings.Contains(r.stderr, "fix ") {
				t.Errorf("a full disk is taken for a damaged patch:\n%s", r.stderr)
			}
			freed()
			p.mustRun("apply")
			if r := p.mustRun("extract"); strings.Count(r.stdout, "unchanged") != 3 {
				t.Errorf("extract after the apply:\n%s", r.stdout)
			}
		})
	}
}

var advisedCmdRE = regexp.MustCompile("`nomadfork ([^`]*)`")

// U6: during a -new-line rebase, every command a message advises carries
// -line <the new line> (the "still has conflicts" message said `nomadfork
// rebase -continue`, which answers "no rebase in progress").
func TestCrashNewLineAdviceCarriesLine(t *testing.T) {
	p := newProject(t)
	p.conflictSeries()
	runs := []result{p.mustFail("rebase", "-onto", "v1.0.2", "-new-line")}
	r := p.mustFail("rebase", "-continue", "-line", "v1.0.2")
	containsAll(t, "rebase -continue with the conflict left", r.stderr, "still has conflicts", "then run `nomadfork rebase -continue -line v1.0.2`")
	runs = append(runs, r,
		p.mustFail("apply", "-line", "v1.0.2"),
		p.mustFail("extract", "-line", "v1.0.2"),
		p.mustFail("drop", "0001", "-applied-upstream", "v1.1.0", "-line", "v1.0.2"))
	for _, r := range runs {
		for _, m := range advisedCmdRE.FindAllStringSubmatch(r.stdout+r.stderr, -1) {
			if !strings.Contains(m[1], "-line v1.0.2") {
				t.Errorf("advised `nomadfork %s` lacks -line v1.0.2:\n%s", m[1], r.stderr)
			}
		}
	}
	// The advised commands work.
	p.resolveIn("lines/v1.0.2/nomad", "lib/lib.go", "func F10() int { return 100 } // merged\n")
	p.mustRun("rebase", "-continue", "-line", "v1.0.2")
	p.mustRun("check", "-no-build", "-line", "v1.0.2")
}

// The renderer adds -line to the steps advised for a line other than the
// default one, and leaves sandbox and the steps on the default line; the
// work tree's output renders the same.
func TestAdviceCarriesLine(t *testing.T) {
	e := &env{Workspace: &workspace.Workspace{Checkout: worktree.Checkout{Line: line.Line{Name: "v1.0.2", WorkTree: "/r/lines/v1.0.2/nomad"}}, Root: "/r", Layout: line.Layout{Root: t.TempDir()}}}
	m := hint.Sprintf("resolved by hand: 0001; run %s to save them; then %s, %s, %s in %s",
		hint.Run("extract"), hint.Run("check", "-no-build"), hint.Run("sandbox", "--", "x"), hint.Run("apply").OnLine("v1.0.3"), hint.WorkTree)
	var b strings.Builder
	if err := hint.Fprint(renderedOut{&b, renderer{e}}, m); err != nil {
		t.Fatal(err)
	}
	want := "resolved by hand: 0001; run `nomadfork extract -line v1.0.2` to save them; then `nomadfork check -no-build -line v1.0.2`, " +
		"`nomadfork sandbox -- x`, `nomadfork apply -line v1.0.3` in lines/v1.0.2/nomad/\n"
	if b.String() != want {
		t.Errorf("got  %s\nwant %s", b.String(), want)
	}
	if got := e.render(hint.Errorf("wrapped: %w", fmt.Errorf("context: %w", hint.Errorf("run %s", hint.Run("apply"))))); got != "wrapped: context: run `nomadfork apply -line v1.0.2`" {
		t.Errorf("a wrapped error renders as %q", got)
	}
	e.Line = line.Line{Name: "v1.0.1", Default: true, WorkTree: "/r/nomad"}
	want = "resolved by hand: 0001; run `nomadfork extract` to save them; then `nomadfork check -no-build`, " +
		"`nomadfork sandbox -- x`, `nomadfork apply -line v1.0.3` in nomad/"
	if got := e.say(m); got != want {
		t.Errorf("the default line's advice:\ngot  %s\nwant %s", got, want)
	}
}
