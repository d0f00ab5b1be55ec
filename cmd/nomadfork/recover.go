package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/lockfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// recoverInterrupted finishes what an interrupted earlier run left, before
// a command reads anything: a committed change of the series on disk (a
// transaction) is finished, and a git step of the tool that was killed in
// a work tree is undone (its index lock removed, the work tree restored
// to the last recorded step). locked says the command holds the tool's
// lock; a command that does not takes it for the recovery, only if there
// is something to recover.
func (e *env) recoverInterrupted(ctx context.Context, locked bool) error {
	patches := filepath.Join(e.root, line.PatchesDir)
	trees := e.workTrees()
	pending := exists(filepath.Join(patches, txn.DirName))
	for _, dir := range trees {
		pending = pending || exists(filepath.Join(dir, ".git", "nomadfork-step.json"))
	}
	if !pending {
		return nil
	}
	if !locked {
		release, err := e.lock("recover")
		if err != nil {
			return err
		}
		defer release()
	}
	what, err := txn.Recover(patches)
	if err != nil {
		return err
	}
	if what != "" {
		fmt.Fprintf(e.stderr, "nomadfork: finished an interrupted change of the series: %s\n", what)
	}
	for _, dir := range e.workTrees() {
		if !exists(filepath.Join(dir, ".git", "nomadfork-step.json")) {
			continue
		}
		// A nomadfork killed outright leaves its git running: undo its
		// step only once that git has finished.
		err := git.WaitOrphans(ctx, dir, orphanWait, func(ps []git.Process) {
			for _, p := range ps {
				fmt.Fprintf(e.stderr, "nomadfork: waiting for %s, left running by an earlier nomadfork that was killed, to finish in %s\n", p, dir)
			}
		})
		if err != nil {
			return err
		}
		rec, err := git.RecoverDir(ctx, dir)
		if err != nil {
			return fmt.Errorf("undoing an interrupted git step in %s: %w", dir, err)
		}
		if rec != nil {
			fmt.Fprintf(e.stderr, "nomadfork: undid the interrupted `git %s` in %s\n", strings.Join(rec.Args, " "), dir)
		}
	}
	return nil
}

// orphanWait is how long recovery waits for the git of a killed
// nomadfork to finish.
var orphanWait = time.Minute

// workTrees returns the work tree directories of the lines there are or
// were: nomad/ and lines/*/nomad.
func (e *env) workTrees() []string {
	dirs := []string{filepath.Join(e.root, "nomad")}
	more, _ := filepath.Glob(filepath.Join(e.root, line.WorkTreesDir, "*", "nomad"))
	return append(dirs, more...)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// lock takes the tool's lock for verb, saying so when it removes a stale
// lock.
func (e *env) lock(verb string) (release func(), err error) {
	release, err = lockfile.Acquire(filepath.Join(e.out, "nomadfork.lock"), verb, func(s lockfile.Stale) {
		if s.Holder.PID == 0 {
			fmt.Fprintf(e.stderr, "nomadfork: removed an unreadable lock file %s\n", s.File)
			return
		}
		fmt.Fprintf(e.stderr, "nomadfork: removed a stale lock: `nomadfork %s` (pid %d) stopped without releasing it\n", s.Holder.Verb, s.Holder.PID)
	})
	var held *lockfile.HeldError
	if errors.As(err, &held) {
		h := held.Holder
		return nil, fmt.Errorf("`nomadfork %s` (pid %d) has been running since %s; wait for it to finish, or stop it with `kill %d` (lock %s)",
			h.Verb, h.PID, h.Started.Local().Format("15:04:05"), h.PID, held.File)
	}
	return release, err
}
