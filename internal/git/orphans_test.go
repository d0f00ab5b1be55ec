package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeToolGit starts, in dir, a process that looks like a git the tool
// started (a program named git, with the tool's committer identity), which
// runs until the returned function is called.
func fakeToolGit(t *testing.T, dir string, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	return fakeGitProcess(t, dir, true, args...)
}

// fakeGitProcess is fakeToolGit, without the tool's identity unless tool.
func fakeGitProcess(t *testing.T, dir string, tool bool, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nread line\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Dir: dir}
	cmd := r.Command(context.Background(), args...)
	cmd.Path, cmd.Args = script, append([]string{script}, args...)
	if !tool {
		cmd.Env = os.Environ()
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { in.Close() }
	t.Cleanup(func() { stop(); cmd.Wait() })
	return cmd, stop
}

// A git of an earlier nomadfork still running in the work tree (an orphan
// of a killed nomadfork) is found and waited for; one of the user's (no
// tool identity) or in another directory is not.
func TestWaitOrphans(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc")
	}
	dir, other := t.TempDir(), t.TempDir()
	fakeGitProcess(t, dir, false, "log")
	fakeToolGit(t, other, "status")
	cmd, stop := fakeToolGit(t, dir, "am", "--quiet", "x.patch")

	ctx := context.Background()
	err := WaitOrphans(ctx, dir, 50*time.Millisecond, nil)
	var busy *BusyError
	if !errors.As(err, &busy) || len(busy.Processes) != 1 || busy.Processes[0].PID != cmd.Process.Pid {
		t.Fatalf("WaitOrphans = %v, want the tool's git (pid %d) only", err, cmd.Process.Pid)
	}
	for _, want := range []string{"git am --quiet x.patch", "still runs in " + dir, "kill "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// The orphan ends (and stays a zombie: nothing reaps it here) while
	// WaitOrphans waits.
	var waited []Process
	err = WaitOrphans(ctx, dir, time.Minute, func(ps []Process) { waited = ps; stop() })
	if err != nil || len(waited) != 1 {
		t.Fatalf("WaitOrphans = %v, waited for %v", err, waited)
	}
	if ps := Orphans(dir); len(ps) != 0 {
		t.Errorf("Orphans after the end = %v", ps)
	}
}

// Recovering an interrupted `git am` whose session ended meanwhile (the
// killed nomadfork's git went on and finished it, so --abort failed and
// --quit finds nothing in progress) goes on to the reset.
func TestRecoverAmSessionEndedMeanwhile(t *testing.T) {
	r, patch := repo(t)
	bg := context.Background()
	before, err := r.ResolveCommit(bg, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	gitDir, _ := r.GitDir(bg)
	ctx, cancel := context.WithCancel(bg)
	err = r.step(ctx, Undo{Restore: before, AbortAm: true}, []string{"am", patch}, func() error {
		// The session a git am killed half-way leaves.
		writeAmSession(gitDir)
		if _, err := r.Run(bg, "commit", "-q", "--allow-empty", "-m", "applied by the orphan"); err != nil {
			t.Fatal(err)
		}
		cancel()
		return ctx.Err()
	})
	if err == nil {
		t.Fatal("step succeeded")
	}
	// A git whose `am --abort` fails as the session ends under it.
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	wrapper := "#!/bin/sh\ncase \" $* \" in *\" am --abort \"*) rm -rf " + filepath.Join(gitDir, "rebase-apply") +
		"; echo 'error: could not abort' >&2; exit 128;; esac\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	rec, err := RecoverDir(bg, r.Dir)
	if err != nil || rec == nil {
		t.Fatalf("RecoverDir = %+v, %v", rec, err)
	}
	if head, _ := r.ResolveCommit(bg, "HEAD"); head != before {
		t.Errorf("HEAD = %s, want %s", head, before)
	}
	if _, err := os.Stat(filepath.Join(gitDir, stepFile)); !os.IsNotExist(err) {
		t.Errorf("step record left: %v", err)
	}
}

// Recovering a `git am` killed while it wrote its state (the patch
// counters written, the author script created but empty: git can neither
// abort nor quit that session) removes the session and goes on to the
// reset.
func TestRecoverAmKilledWritingItsState(t *testing.T) {
	r, patch := repo(t)
	bg := context.Background()
	before, err := r.ResolveCommit(bg, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	gitDir, _ := r.GitDir(bg)
	ctx, cancel := context.WithCancel(bg)
	err = r.step(ctx, Undo{Restore: before, AbortAm: true}, []string{"am", patch}, func() error {
		writeAmSession(gitDir, "author-script")
		cancel()
		return ctx.Err()
	})
	if err == nil {
		t.Fatal("step succeeded")
	}
	if _, err := r.Run(bg, "am", "--quit"); err == nil {
		t.Fatal("git am --quit accepted the half-written session: the test no longer reproduces it")
	}
	rec, err := RecoverDir(bg, r.Dir)
	if err != nil || rec == nil {
		t.Fatalf("RecoverDir = %+v, %v", rec, err)
	}
	if _, err := os.Stat(filepath.Join(gitDir, "rebase-apply")); !os.IsNotExist(err) {
		t.Errorf("am session left: %v", err)
	}
	if head, _ := r.ResolveCommit(bg, "HEAD"); head != before {
		t.Errorf("HEAD = %s, want %s", head, before)
	}
	if _, err := os.Stat(filepath.Join(gitDir, stepFile)); !os.IsNotExist(err) {
		t.Errorf("step record left: %v", err)
	}
}

// writeAmSession writes the state of a git am session on its first of one
// patch, as a git am killed while it wrote it leaves: the patch counters
// and the named files, empty.
func writeAmSession(gitDir string, empty ...string) {
	dir := filepath.Join(gitDir, "rebase-apply")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "next"), []byte("1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "last"), []byte("1\n"), 0o644)
	for _, f := range empty {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
}
