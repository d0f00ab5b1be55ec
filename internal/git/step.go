package git

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// stepFile, in the git directory, records the git step under way: what a
// git process killed by an interruption leaves behind, and how to undo it.
const stepFile = "nomadfork-step.json"

// Undo says how to restore the work tree when a step was interrupted.
type Undo struct {
	// Restore is the commit HEAD (and its branch) is reset to, with the
	// index and the tracked files; empty: the index and the files stay
	// (they hold a user's resolution).
	Restore string `json:"restore,omitempty"`
	// AbortAm aborts a `git am` session the step left.
	AbortAm bool `json:"abort_am,omitempty"`
	// Clean lists untracked files the step may have created, removed
	// after the reset.
	Clean []string `json:"clean,omitempty"`
}

type stepRecord struct {
	PID  int      `json:"pid"`
	Args []string `json:"args"`
	Undo Undo     `json:"undo"`
}

// Step runs git with args as one interruptible step: a record of it stays
// in the git directory until it ends, so that Recover, in this run or the
// next, can remove the index lock a killed git left and undo the step as
// undo says.
func (r *Repo) Step(ctx context.Context, undo Undo, args ...string) (string, error) {
	var out string
	err := r.step(ctx, undo, args, func() error {
		var err error
		out, err = r.Run(ctx, args...)
		return err
	})
	return out, err
}

// step records args and undo, runs fn, and removes the record unless an
// interruption stopped fn.
func (r *Repo) step(ctx context.Context, undo Undo, args []string, fn func() error) error {
	dir, err := r.GitDir(ctx)
	if err != nil {
		return err
	}
	rec := filepath.Join(dir, stepFile)
	data, err := json.Marshal(stepRecord{PID: os.Getpid(), Args: args, Undo: undo})
	if err != nil {
		return err
	}
	if err := os.WriteFile(rec, data, 0o644); err != nil {
		return fmt.Errorf("recording git %s: %w", strings.Join(args, " "), err)
	}
	err = fn()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if Interrupted(err) {
		// Ctrl-C reached git before the tool's context ended.
		return err
	}
	os.Remove(rec)
	return err
}

// Interruption returns the interruption behind a failed command's err: the
// context's error once it ended, err when the command died of an
// interruption (Interrupted), nil when the failure is an answer.
func Interruption(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if Interrupted(err) {
		return err
	}
	return nil
}

// Interrupted reports whether err comes from an interruption: the
// context ended, or a command died of SIGINT, SIGTERM or SIGKILL (a
// terminal's Ctrl-C reaches git too, possibly before the tool reacts).
func Interrupted(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL:
				return true
			}
		}
	}
	return false
}

// Recovered describes what Recover undid.
type Recovered struct {
	// Args are the interrupted step's git arguments.
	Args []string
	// Lock: a stale lock (index, HEAD or a ref) was removed.
	Lock bool
}

// Recover undoes a step an interruption stopped, if the git directory
// records one: it removes the index lock the killed git left, aborts a
// `git am` session, resets to the recorded commit and removes the
// untracked files the step created. It returns nil if there was nothing to
// do. Callers hold the tool's lock, so no git step of the tool runs.
func (r *Repo) Recover(ctx context.Context) (*Recovered, error) {
	dir, err := r.GitDir(ctx)
	if err != nil {
		return nil, err
	}
	return recoverIn(ctx, r, dir)
}

// RecoverDir is Recover for the work tree at dir, which need not be a
// repository; it does nothing unless dir/.git records a step.
func RecoverDir(ctx context.Context, dir string) (*Recovered, error) {
	gitDir := filepath.Join(dir, ".git")
	if _, err := os.Stat(filepath.Join(gitDir, stepFile)); err != nil {
		return nil, nil
	}
	return recoverIn(ctx, &Repo{Dir: dir}, gitDir)
}

func recoverIn(ctx context.Context, r *Repo, gitDir string) (*Recovered, error) {
	recFile := filepath.Join(gitDir, stepFile)
	data, err := os.ReadFile(recFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec stepRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		// A torn record: the step had not started.
		return nil, os.Remove(recFile)
	}
	if rec.PID != os.Getpid() && rec.PID > 0 && alive(rec.PID) && sameExecutable(rec.PID) {
		return nil, fmt.Errorf("nomadfork (pid %d) is running git %s in %s; wait for it to finish", rec.PID, strings.Join(rec.Args, " "), r.Dir)
	}
	ctx = context.WithoutCancel(ctx)
	out := &Recovered{Args: rec.Args}
	// A git killed mid-step can leave the index's, HEAD's or a ref's lock:
	// any of them stops the reset below.
	out.Lock = removeLocks(gitDir, time.Time{})
	u := rec.Undo
	if u.AbortAm {
		if _, err := os.Stat(filepath.Join(gitDir, "rebase-apply")); err == nil {
			if _, err := r.Run(ctx, "am", "--abort"); err != nil {
				// --abort refuses when HEAD moved since; the reset below
				// restores HEAD anyway. Both refuse, "not in progress", once
				// the session is gone: the git killed with the tool (an
				// orphan that went on) may have ended it meanwhile, or it
				// had only just begun it. Nothing of it is left to undo
				// then but a stray directory. A git am killed while it
				// wrote its state leaves a session git can neither abort
				// nor quit ("could not parse author script"); the reset
				// below restores HEAD, the index and the tree, so the
				// directory is all that is left of it too.
				if _, err := r.Run(ctx, "am", "--quit"); err != nil && amInProgress(gitDir) && u.Restore == "" {
					return nil, err
				}
				os.RemoveAll(filepath.Join(gitDir, "rebase-apply"))
			}
		}
	}
	if u.Restore != "" {
		if _, err := r.Run(ctx, "reset", "--quiet", "--hard", u.Restore); err != nil {
			return nil, err
		}
		if len(u.Clean) > 0 {
			if _, err := r.Run(ctx, append([]string{"clean", "--quiet", "--force", "--"}, u.Clean...)...); err != nil {
				return nil, err
			}
		}
	}
	return out, os.Remove(recFile)
}

// amInProgress reports whether gitDir holds a `git am` session git itself
// would resume: its state directory with the patch counters.
func amInProgress(gitDir string) bool {
	for _, f := range []string{"next", "last"} {
		if _, err := os.Stat(filepath.Join(gitDir, "rebase-apply", f)); err != nil {
			return false
		}
	}
	return true
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// sameExecutable reports whether pid runs the executable this process
// runs: a reused pid of another program does not hold a step.
func sameExecutable(pid int) bool {
	self, err1 := os.Executable()
	other, err2 := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err1 != nil || err2 != nil {
		return true
	}
	return filepath.Clean(self) == filepath.Clean(strings.TrimSuffix(other, " (deleted)"))
}

// NewFiles returns the files the patch file at path creates (its "new
// file mode" entries): what an interrupted `git am` of it can leave
// untracked.
func NewFiles(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var files []string
	var cur string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "diff --git a/") {
			if i := strings.LastIndex(l, " b/"); i > 0 {
				cur = l[i+3:]
			}
			continue
		}
		if strings.HasPrefix(l, "new file mode ") && cur != "" {
			files = append(files, cur)
		}
	}
	return files, sc.Err()
}

// undoMovingTo is the Undo of a step that moves HEAD to target: back to
// the commit HEAD is at, without the files target adds.
func (r *Repo) undoMovingTo(ctx context.Context, target string) (Undo, error) {
	before, err := r.ResolveCommit(ctx, "HEAD")
	if err != nil {
		return Undo{}, err
	}
	undo := Undo{Restore: before}
	if before != "" {
		if undo.Clean, err = r.Lines(ctx, "diff", "--name-only", "--no-renames", "--diff-filter=A", before, target); err != nil {
			return Undo{}, err
		}
	}
	return undo, nil
}

// Switch checks out target on branch (forced, as `git checkout --force -B
// branch target`) as one step: interrupted, the work tree returns to the
// commit HEAD was at, without the files target adds.
func (r *Repo) Switch(ctx context.Context, branch, target string) error {
	undo, err := r.undoMovingTo(ctx, target)
	if err != nil {
		return err
	}
	_, err = r.Step(ctx, undo, "checkout", "--quiet", "--force", "-B", branch, target)
	return err
}

// ResetHard resets HEAD, its branch, the index and the tracked files to
// target as one step (interrupted: back to where HEAD was).
func (r *Repo) ResetHard(ctx context.Context, target string) error {
	undo, err := r.undoMovingTo(ctx, target)
	if err != nil {
		return err
	}
	_, err = r.Step(ctx, undo, "reset", "--quiet", "--hard", target)
	return err
}
