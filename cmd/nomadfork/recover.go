package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/lockfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// recoverInterrupted finishes what an interrupted earlier run left (see
// worktree.Recovery) in every line's work tree and the series, and says
// what it did. locked says the command holds the tool's lock; a command
// that does not takes it for the recovery, only if there is something to
// recover.
func (e *env) recoverInterrupted(ctx context.Context, locked bool) error {
	r := worktree.Recovery{Txn: filepath.Join(e.Root, line.PatchesDir), Trees: e.Layout.WorkTrees, OrphanWait: orphanWait,
		Finished: func(what string) {
			fmt.Fprintf(e.stderr, "nomadfork: finished an interrupted change of the series: %s\n", what)
		},
		Waiting: func(p git.Process, dir string) {
			fmt.Fprintf(e.stderr, "nomadfork: waiting for %s, left running by an earlier nomadfork that was killed, to finish in %s\n", p, dir)
		},
		Undid: func(args []string, dir string) {
			fmt.Fprintf(e.stderr, "nomadfork: undid the interrupted `git %s` in %s\n", strings.Join(args, " "), dir)
		}}
	if !r.Pending() {
		return nil
	}
	if !locked {
		release, err := e.lock("recover")
		if err != nil {
			return err
		}
		defer release()
	}
	return r.Run(ctx)
}

// orphanWait is how long recovery waits for the git of a killed
// nomadfork to finish.
var orphanWait = time.Minute

// lock takes the tool's lock for verb, saying so when it removes a stale
// lock.
func (e *env) lock(verb string) (release func(), err error) {
	release, err = lockfile.Acquire(filepath.Join(e.Out, "nomadfork.lock"), verb, func(s lockfile.Stale) {
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
