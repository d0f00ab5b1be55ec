package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// Recovery finishes what interrupted earlier runs left in a repository,
// before a command reads anything: a committed change of the series on
// disk (a transaction) is finished, and a git step of the tool that was
// killed in a work tree is undone (its locks removed, the work tree
// restored to the last recorded step).
type Recovery struct {
	// Txn is the directory transactions stage in (patches/); Trees lists
	// the work tree directories of the lines there are or were (again
	// after the transaction, which may move one).
	Txn   string
	Trees func() []string
	// OrphanWait is how long to wait for the git of a killed run to end.
	OrphanWait time.Duration
	// Finished, Waiting and Undid are told what the recovery does: the
	// change of the series it finished, the git of a killed run it waits
	// for, the git step it undid (its arguments).
	Finished func(what string)
	Waiting  func(p git.Process, dir string)
	Undid    func(args []string, dir string)
}

// stepFile is where git records the step the tool runs in a work tree.
func stepFile(dir string) string { return filepath.Join(dir, ".git", "nomadfork-step.json") }

// Pending reports whether there is anything to recover.
func (r Recovery) Pending() bool {
	pending := exists(filepath.Join(r.Txn, txn.DirName))
	for _, dir := range r.Trees() {
		pending = pending || exists(stepFile(dir))
	}
	return pending
}

// Run recovers.
func (r Recovery) Run(ctx context.Context) error {
	what, err := txn.Recover(r.Txn)
	if err != nil {
		return err
	}
	if what != "" {
		r.Finished(what)
	}
	for _, dir := range r.Trees() {
		if !exists(stepFile(dir)) {
			continue
		}
		// A run killed outright leaves its git running: undo its step
		// only once that git has finished.
		err := git.WaitOrphans(ctx, dir, r.OrphanWait, func(ps []git.Process) {
			for _, p := range ps {
				r.Waiting(p, dir)
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
			r.Undid(rec.Args, dir)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
