package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// IsRepo answers yes or no only when git answered: a git that died of
// Ctrl-C before the tool's context ended (the terminal signals the whole
// process group) is an interruption, not "no repository" — read as a
// "no", `rebase -continue` said "no rebase in progress" and gave no
// advice to resume.
func TestIsRepo(t *testing.T) {
	r, _ := repo(t)
	ctx := context.Background()

	if ok, err := r.IsRepo(ctx); !ok || err != nil {
		t.Fatalf("IsRepo of a repository: %v, %v; want true, nil", ok, err)
	}
	sub := &Repo{Dir: filepath.Join(r.Dir, "sub")}
	if err := os.Mkdir(sub.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, err := sub.IsRepo(ctx); ok || err != nil {
		t.Fatalf("IsRepo of a directory inside a repository: %v, %v; want false, nil", ok, err)
	}
	plain := &Repo{Dir: t.TempDir()}
	if ok, err := plain.IsRepo(ctx); ok || err != nil {
		t.Fatalf("IsRepo of a plain directory: %v, %v; want false, nil", ok, err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if ok, err := r.IsRepo(cancelled); ok || err == nil {
		t.Fatalf("IsRepo with its context ended: %v, %v; want an error", ok, err)
	}

	// A git that dies of SIGINT while the context is still live.
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\nkill -INT $$\nsleep 5\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ok, err := r.IsRepo(ctx)
	if ok || !Interrupted(err) {
		t.Fatalf("IsRepo when git dies of SIGINT: %v, %v; want false and an interruption", ok, err)
	}
}

// git runs in a process group of its own: a terminal's Ctrl-C, sent to
// the tool's group, does not reach it, and the tool stops it through its
// context instead.
func TestGitRunsInItsOwnProcessGroup(t *testing.T) {
	bin := t.TempDir()
	// Field 5 of /proc/<pid>/stat is the process group ("sh" has no
	// space in its name).
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\ncut -d' ' -f5 /proc/$$/stat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := &Repo{Dir: t.TempDir()}
	out, err := r.Line(context.Background(), "version")
	if err != nil {
		t.Fatal(err)
	}
	if mine := strconv.Itoa(syscall.Getpgrp()); out == mine || out == "" {
		t.Fatalf("git ran in process group %q, the test's is %s: want a group of its own", out, mine)
	}
}

// The locks a killed git leaves in a linked work tree (check's, status's
// and export's scratch trees) are in two places: its index's and HEAD's in
// its own git directory, packed-refs' and the refs' in the common one.
// Both go; a lock older than the killed command is someone else's.
func TestRemoveKilledLockInLinkedWorkTree(t *testing.T) {
	r, _ := repo(t)
	ctx := context.Background()
	old := filepath.Join(r.Dir, ".git", "ORIG_HEAD.lock")
	if err := os.WriteFile(old, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(t.TempDir(), "tree")
	if _, err := r.Run(ctx, "worktree", "add", "--quiet", "--detach", scratch, "HEAD"); err != nil {
		t.Fatal(err)
	}
	wt := &Repo{Dir: scratch}
	own, err := wt.GitDir(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	locks := []string{filepath.Join(own, "index.lock"), filepath.Join(r.Dir, ".git", "packed-refs.lock"), filepath.Join(r.Dir, ".git", "refs", "heads", "main.lock")}
	for _, l := range locks {
		if err := os.WriteFile(l, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt.removeKilledLock(start)
	for _, l := range locks {
		if _, err := os.Stat(l); err == nil {
			t.Errorf("%s left behind", l)
		}
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the older lock %s was removed", old)
	}
}

// RunInput's error carries git's stderr, the cause: extract's rewrite of
// a commit message once failed on a nearly full disk with "exit status
// 128" and nothing more.
func TestRunInputErrorSaysWhy(t *testing.T) {
	dir := t.TempDir()
	r := &Repo{Dir: dir}
	if _, err := r.Run(context.Background(), "init", "-q"); err != nil {
		t.Fatal(err)
	}
	_, err := r.RunInput(context.Background(), "msg\n", nil, "commit-tree", "0123456789012345678901234567890123456789", "-F", "-")
	var gerr *Error
	if !errors.As(err, &gerr) || !strings.Contains(err.Error(), "not a valid") {
		t.Errorf("RunInput error = %v, want a *git.Error with git's message", err)
	}
	if full := (&Error{Err: err, Stderr: "error: unable to write file: No space left on device"}); !errors.Is(full, syscall.ENOSPC) {
		t.Error("a git error of a full disk is not ENOSPC")
	}
}
