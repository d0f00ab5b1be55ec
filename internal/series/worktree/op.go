package worktree

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Op is an operation in progress in the work tree: an apply or a rebase
// that stopped (at a conflict, or interrupted) and waits for the user.
type Op struct {
	// Verb is apply, rebase or git am (a session the tool did not start).
	Verb string
	// What describes where it stopped.
	What string
	// Finish and Abort are the exact commands that finish and abort it.
	Finish, Abort string
}

// Refuse returns the error a verb gives while op is in progress.
func (op *Op) Refuse(verb string) error {
	return &RefusalError{
		What: fmt.Sprintf("%s; `nomadfork %s` would mix with it", op.What, verb),
		Hint: "finish it: " + op.Finish + "\nor abort it: " + op.Abort,
	}
}

// InProgress returns the operation in progress in the work tree, or nil.
func (t *Tree) InProgress(ctx context.Context) (*Op, error) {
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return nil, ctx.Err()
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case state.Rebase != nil && state.Rebase.Stopped != "":
		return &Op{Verb: "rebase",
			What:   fmt.Sprintf("a rebase onto %s is stopped at a conflict in %s", state.Rebase.Onto, state.Rebase.Stopped),
			Finish: "resolve the conflicts in " + t.Dir + ", `git add` the files, then run `nomadfork rebase -continue`",
			Abort:  "`nomadfork rebase -abort` (restores the work tree; pin, patches/ and CHANGELOG.md are untouched until a rebase completes)"}, nil
	case state.Rebase != nil:
		return &Op{Verb: "rebase",
			What:   fmt.Sprintf("a rebase onto %s was interrupted", state.Rebase.Onto),
			Finish: "`nomadfork rebase -continue`",
			Abort:  "`nomadfork rebase -abort` (restores the work tree; pin, patches/ and CHANGELOG.md are untouched until a rebase completes)"}, nil
	case len(state.Pending) > 0 && inAm:
		return &Op{Verb: "apply",
			What:   fmt.Sprintf("an apply is stopped at a conflict in %s", state.Pending[0]),
			Finish: "resolve the conflicts in " + t.Dir + ", `git add` the files, then run `nomadfork apply -continue`",
			Abort:  "`nomadfork apply -abort` (keeps the patches applied so far)"}, nil
	case len(state.Pending) > 0:
		return &Op{Verb: "apply",
			What:   fmt.Sprintf("an apply stopped before %s (interrupted, or the patch did not apply)", state.Pending[0]),
			Finish: "`nomadfork apply` (after fixing the patch, if it did not apply)",
			Abort:  "`nomadfork apply -abort` (keeps the patches applied so far)"}, nil
	case inAm:
		return &Op{Verb: "git am",
			What:   "a `git am` session that nomadfork did not start is stopped in " + t.Dir,
			Finish: "`git am --continue` in " + t.Dir,
			Abort:  "`git am --abort` in " + t.Dir}, nil
	}
	return nil, nil
}

// Need lists the preconditions of a verb on the work tree.
type Need struct {
	// Verb names the command, for messages.
	Verb string
	// Base: the work tree exists and has its upstream branch.
	Base bool
	// NoOp: no apply or rebase is in progress.
	NoOp bool
	// Clean: no uncommitted changes.
	Clean bool
	// ForkTip: HEAD is the tip of the fork branch, not detached or on
	// another branch.
	ForkTip bool
}

// Require checks the preconditions of a verb, in one place for every verb.
func (t *Tree) Require(ctx context.Context, n Need) error {
	if n.Base {
		if !t.Exists() || !t.Repo.IsRepo(ctx) {
			return fmt.Errorf("no work tree at %s: run `nomadfork apply` (or `make`) first", t.Dir)
		}
		base, err := t.Base(ctx)
		if err != nil {
			return err
		}
		if base == "" {
			return fmt.Errorf("%s has no %q branch (the base ref), so nomadfork cannot tell which commits are the series; run `nomadfork apply` to recreate it", t.Dir, BaseBranch)
		}
	}
	if n.NoOp {
		op, err := t.InProgress(ctx)
		if err != nil {
			return err
		}
		if op != nil {
			return op.Refuse(n.Verb)
		}
	}
	if n.ForkTip {
		ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD")
		if err != nil || ref != "refs/heads/"+ForkBranch {
			where := "detached"
			if err == nil {
				where = "on " + strings.TrimPrefix(ref, "refs/heads/")
			}
			head, _ := t.Repo.Line(ctx, "rev-parse", "--short", "HEAD")
			// Commits made on top of the fork branch's tip (on a detached
			// HEAD, say) are kept by moving the branch to HEAD; any other
			// HEAD's own commits are picked onto the branch.
			hint := fmt.Sprintf("run `git -C %s checkout -B %s` (the branch moves to HEAD, keeping its commits), then `nomadfork %s` again", t.Dir, ForkBranch, n.Verb)
			if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", ForkBranch, "HEAD"); err != nil {
				hint = fmt.Sprintf("run `git -C %s checkout %s`, pick the commits of %s you want to keep onto it (`git -C %s cherry-pick %s..%s`), then `nomadfork %s` again", t.Dir, ForkBranch, head, t.Dir, ForkBranch, head, n.Verb)
			}
			return &RefusalError{
				What: fmt.Sprintf("HEAD of %s is %s at %s, not the tip of the %q branch: `nomadfork %s` would take the commits up to HEAD as the whole series and lose the later patches", t.Dir, where, head, ForkBranch, n.Verb),
				Hint: hint,
			}
		}
	}
	if n.Clean {
		dirty, err := t.Repo.Status(ctx)
		if err != nil {
			return err
		}
		if len(dirty) > 0 {
			return &RefusalError{What: t.Dir + " has uncommitted changes:", Items: dirty,
				Hint: "commit them (then `nomadfork extract`) or stash them first"}
		}
	}
	return nil
}

// ErrNothing is returned by Apply for -continue or -abort without an apply
// in progress.
var ErrNothing = errors.New("no apply in progress")
