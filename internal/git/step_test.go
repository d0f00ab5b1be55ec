package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An interrupted step's record stays, and Recover undoes the step: the
// lock the killed git left (the index's, HEAD's, a ref's), a half-made
// commit and the files the step created go.
func TestRecoverUndoesInterruptedStep(t *testing.T) {
	for _, lock := range []string{"index.lock", "HEAD.lock", "refs/heads/fork.lock"} {
		t.Run(lock, func(t *testing.T) {
			r, patch := repo(t)
			bg := context.Background()
			before, err := r.ResolveCommit(bg, "HEAD")
			if err != nil {
				t.Fatal(err)
			}
			gitDir, _ := r.GitDir(bg)
			ctx, cancel := context.WithCancel(bg)
			err = r.step(ctx, Undo{Restore: before, AbortAm: true, Clean: []string{"new.go"}}, []string{"am", patch}, func() error {
				// What a git killed half-way leaves: a commit, a changed
				// file, a new untracked file and a lock.
				if _, err := r.Run(bg, "commit", "-q", "--allow-empty", "-m", "half"); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(r.Dir, "lib.go"), []byte("garbage\n"), 0o644)
				os.WriteFile(filepath.Join(r.Dir, "new.go"), []byte("package lib\n"), 0o644)
				os.MkdirAll(filepath.Dir(filepath.Join(gitDir, lock)), 0o755)
				os.WriteFile(filepath.Join(gitDir, lock), nil, 0o644)
				cancel()
				return ctx.Err()
			})
			if err == nil {
				t.Fatal("step succeeded")
			}
			if _, err := os.Stat(filepath.Join(gitDir, stepFile)); err != nil {
				t.Fatalf("no step record after the interruption: %v", err)
			}
			rec, err := RecoverDir(bg, r.Dir)
			if err != nil || rec == nil || !rec.Lock {
				t.Fatalf("RecoverDir = %+v, %v", rec, err)
			}
			if _, err := os.Stat(filepath.Join(gitDir, lock)); !os.IsNotExist(err) {
				t.Errorf("%s left: %v", lock, err)
			}
			if head, _ := r.ResolveCommit(bg, "HEAD"); head != before {
				t.Errorf("HEAD = %s, want %s", head, before)
			}
			if st, _ := r.Status(bg); len(st) != 0 {
				t.Errorf("work tree not clean: %q", st)
			}
			if again, err := RecoverDir(bg, r.Dir); again != nil || err != nil {
				t.Errorf("second recovery = %+v, %v", again, err)
			}
		})
	}
}

// A step that ends, even failing, leaves no record.
func TestStepRecordRemoved(t *testing.T) {
	r, _ := repo(t)
	bg := context.Background()
	if _, err := r.Step(bg, Undo{}, "rev-parse", "--verify", "no-such-rev"); err == nil {
		t.Fatal("want an error")
	}
	gitDir, _ := r.GitDir(bg)
	if _, err := os.Stat(filepath.Join(gitDir, stepFile)); !os.IsNotExist(err) {
		t.Errorf("record left: %v", err)
	}
}

// A full disk is named first, and thousands of git's lines are cut.
func TestGitMessageNamesFullDiskAndIsShort(t *testing.T) {
	var out strings.Builder
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&out, "error: unable to write file f%d\n", i)
	}
	out.WriteString("fatal: Out of diskspace\n")
	msg := (&AmError{Output: out.String()}).Error()
	if !strings.HasPrefix(msg, "disk full") || strings.Count(msg, "unable to write") > 8 || len(msg) > 1000 {
		t.Errorf("message (%d bytes): %.300s", len(msg), msg)
	}
	e := &Error{Args: []string{"checkout"}, Stderr: out.String()}
	if msg := e.Error(); !strings.HasPrefix(msg, "disk full") || strings.Count(msg, "\n") > 13 {
		t.Errorf("git error (%d lines): %.300s", strings.Count(msg, "\n"), msg)
	}
}

// An interrupted git removes the lock it holds itself, so that none is
// left when nomadfork exits before its own clean-up runs (a second
// Ctrl-C right behind the first; trial 5's BAD-6). `git commit -a` holds
// index.lock while its editor runs.
func TestInterruptedGitRemovesItsLock(t *testing.T) {
	r, _ := repo(t)
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	editor := filepath.Join(dir, "editor.sh")
	// The editor's pid (kept by exec) in started: the test stops it.
	script := "#!/bin/sh\nexec >/dev/null 2>&1 </dev/null\necho $$ > " + started + ".tmp && mv " + started + ".tmp " + started + "\nexec sleep 60\n"
	if err := os.WriteFile(editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := os.WriteFile(filepath.Join(r.Dir, "lib.go"), []byte("package lib\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := r.Command(ctx, "commit", "-a")
	cmd.Env = append(cmd.Env, "GIT_EDITOR="+editor)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(r.Dir, ".git", "index.lock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, err := os.ReadFile(started); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the commit's editor did not start")
		}
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("git commit holds no index.lock while its editor runs: %v", err)
	}
	cancel()
	_ = cmd.Wait()
	if _, err := os.Stat(lock); err == nil {
		t.Fatal("the interrupted git left index.lock behind")
	}
}
