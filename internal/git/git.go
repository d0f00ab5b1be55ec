// Package git runs git commands in a repository with a configuration that
// does not depend on the user's global or system settings, so that output
// such as `git format-patch` is a pure function of the repository.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Identity is the committer identity used for every commit the tool makes.
const (
	IdentityName  = "nomadfork"
	IdentityEmail = "nomadfork@nomad-client-fork.invalid"
)

// Repo is a git repository with a work tree.
type Repo struct {
	// Dir is the top-level directory of the work tree.
	Dir string
	// Env holds extra environment variables for every command.
	Env []string
}

// Error is returned when a git command fails.
type Error struct {
	Args   []string
	Err    error
	Stderr string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
	if e.DiskFull() {
		msg = "disk full (no space left on device): " + msg
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + shorten(s, 12)
	}
	return msg
}

// DiskFull reports whether git failed for want of disk space.
func (e *Error) DiskFull() bool {
	return strings.Contains(e.Stderr, "No space left on device") || strings.Contains(e.Stderr, "Out of diskspace")
}

// shorten keeps the first n lines of s and counts the others.
func shorten(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… and %d more lines", len(lines)-n)
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, syscall.ENOSPC) true when git failed for want of
// disk space.
func (e *Error) Is(target error) bool { return target == syscall.ENOSPC && e.DiskFull() }

// killDelay is how long an interrupted git has to stop before it is
// killed.
const killDelay = 10 * time.Second

// Command returns a git command for the repository with a neutral
// configuration: no global or system config files and a fixed identity.
func (r *Repo) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", args...)
	// git runs in a process group of its own, so a terminal's Ctrl-C
	// reaches only this process: git stops when the tool's context ends,
	// and a git the tool runs uninterruptibly (recording a step's
	// outcome, undoing one) runs to its end, where a git killed by the
	// terminal would have left the tool reading its death as an answer.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Interrupted, git is asked to stop, not killed: it removes the
	// locks it holds (index.lock, HEAD.lock, a ref's) on SIGTERM, even
	// when this process exits before it can (a second Ctrl-C).
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	cmd.WaitDelay = killDelay
	cmd.Dir = r.Dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_COMMITTER_NAME="+IdentityName,
		"GIT_COMMITTER_EMAIL="+IdentityEmail,
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	)
	cmd.Env = append(cmd.Env, r.Env...)
	return cmd
}

// Run runs git with args and returns its standard output.
func (r *Repo) Run(ctx context.Context, args ...string) (string, error) {
	return r.RunEnv(ctx, nil, args...)
}

// RunEnv is like Run with additional environment variables.
func (r *Repo) RunEnv(ctx context.Context, env []string, args ...string) (string, error) {
	return r.run(ctx, nil, env, args)
}

// run runs git with stdin (nil: none) and env added to its environment,
// and returns its standard output. Its error is an *Error carrying git's
// stderr: the cause, such as a full disk. A git its context killed leaves
// no lock behind.
func (r *Repo) run(ctx context.Context, stdin io.Reader, env, args []string) (string, error) {
	cmd := r.Command(ctx, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil || Interrupted(err) {
			r.removeKilledLock(start)
		}
		return stdout.String(), &Error{Args: args, Err: err, Stderr: stderr.String()}
	}
	return stdout.String(), nil
}

// removeKilledLock removes the locks (index, HEAD, refs) a git command
// killed by the end of its context left, if they were made after the command
// started: the tool's lock keeps its other git commands out, and a lock
// older than the command is someone else's.
func (r *Repo) removeKilledLock(start time.Time) {
	// Not r.GitDir: a git killed in turn would come back here. A linked
	// work tree (the scratch trees) keeps its index and HEAD in its own
	// git directory, and the refs and packed-refs in the common one.
	out, err := r.Command(context.Background(), "rev-parse", "--absolute-git-dir", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return
	}
	for _, dir := range strings.Fields(string(out)) {
		if filepath.IsAbs(dir) {
			removeLocks(dir, start.Add(-time.Second))
		}
	}
}

// RunInput is like RunEnv with stdin as git's standard input. Its error
// is an *Error carrying git's stderr: the cause, such as a full disk.
func (r *Repo) RunInput(ctx context.Context, stdin string, env []string, args ...string) (string, error) {
	return r.run(ctx, strings.NewReader(stdin), env, args)
}

// Line runs git and returns the first line of its output, trimmed.
func (r *Repo) Line(ctx context.Context, args ...string) (string, error) {
	out, err := r.Run(ctx, args...)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(line), nil
}

// Lines runs git and returns the non-empty lines of its output.
func (r *Repo) Lines(ctx context.Context, args ...string) ([]string, error) {
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// IsRepo reports whether Dir is the top level of a git work tree. An
// interruption is no answer: its error is the context's, or git's when
// Ctrl-C reached git before the tool's context ended.
func (r *Repo) IsRepo(ctx context.Context) (bool, error) {
	top, err := r.Line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return false, Interruption(ctx, err)
	}
	a, errA := os.Stat(top)
	b, errB := os.Stat(r.Dir)
	return errA == nil && errB == nil && os.SameFile(a, b), nil
}

// ResolveCommit returns the commit a revision names, or "" and no error if
// the revision does not exist.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var gerr *Error
	if errors.As(err, &gerr) {
		var exit *exec.ExitError
		if errors.As(gerr.Err, &exit) && exit.ExitCode() == 1 {
			return "", nil
		}
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// GitDir returns the absolute path of the repository's git directory.
func (r *Repo) GitDir(ctx context.Context) (string, error) {
	dir, err := r.Line(ctx, "rev-parse", "--absolute-git-dir")
	if err == nil && !filepath.IsAbs(dir) {
		return "", fmt.Errorf("git rev-parse --absolute-git-dir in %s printed %q, not a directory", r.Dir, dir)
	}
	return dir, err
}

// Status returns the porcelain status lines of the work tree: uncommitted
// changes and untracked files, but not ignored ones.
func (r *Repo) Status(ctx context.Context) ([]string, error) {
	return r.Lines(ctx, "status", "--porcelain=v1", "--untracked-files=all")
}
