package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Op is an operation in progress in the work tree: an apply or a rebase
// that stopped (at a conflict, or interrupted) and waits for the user.
type Op struct {
	// Verb is apply, rebase or git am (a session the tool did not start).
	Verb string
	// What describes where it stopped.
	What string
	// Finish and Abort say how to finish and abort it.
	Finish, Abort hint.Message
}

// Refuse returns the error a verb gives while op is in progress.
func (op *Op) Refuse(verb string) error {
	return &RefusalError{
		What: hint.Sprintf("%s; %s would mix with it", op.What, hint.Run(verb)),
		Hint: op.advice(),
	}
}

// advice says how to finish or abort op.
func (op *Op) advice() hint.Message {
	return hint.Sprintf("finish it: %s\nor abort it: %s", op.Finish, op.Abort)
}

// InProgress returns the operation in progress in the work tree, or nil.
func (t *Tree) InProgress(ctx context.Context) (*Op, error) {
	if ok, err := t.HasRepo(ctx); !ok || err != nil {
		return nil, err
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return nil, err
	}
	seq, err := t.Repo.Sequence(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case seq == "bisect" && state.Rebase == nil:
		// It has no --continue or --abort: reset ends it.
		return &Op{Verb: "git bisect",
			What:   fmt.Sprintf("a `git bisect` is in progress in %s (HEAD is the commit it checked out)", t.Dir),
			Finish: hint.Sprintf("mark commits with `git -C %s bisect good` or `bad` until git names the first bad one, then `git -C %s bisect reset`", t.Dir, t.Dir),
			Abort:  hint.Sprintf("`git -C %s bisect reset` (back to the branch the bisect started on)", t.Dir)}, nil
	case seq != "" && state.Rebase == nil:
		// The user's own git operation: the tool never leaves one.
		return &Op{Verb: "git " + seq,
			What:   fmt.Sprintf("a `git %s` is in progress in %s", seq, t.Dir),
			Finish: hint.Sprintf("`git -C %s %s --continue`", t.Dir, seq),
			Abort:  hint.Sprintf("`git -C %s %s --abort`", t.Dir, seq)}, nil
	case state.Rebase != nil && state.Rebase.Stopped != "":
		return &Op{Verb: "rebase",
			What:   fmt.Sprintf("a rebase onto %s is stopped at a conflict in %s", state.Rebase.Onto, state.Rebase.Stopped),
			Finish: hint.Sprintf("resolve the conflicts in %s, `git add` the files, then run %s", t.Dir, hint.Run("rebase", "-continue")),
			Abort:  abortRebase}, nil
	case state.Rebase != nil:
		return &Op{Verb: "rebase",
			What:   fmt.Sprintf("a rebase onto %s was interrupted", state.Rebase.Onto),
			Finish: hint.Sprintf("%s", hint.Run("rebase", "-continue")),
			Abort:  abortRebase}, nil
	case len(state.Pending) > 0 && inAm:
		return &Op{Verb: "apply",
			What:   fmt.Sprintf("an apply is stopped at a conflict in %s", state.Pending[0]),
			Finish: hint.Sprintf("resolve the conflicts in %s, `git add` the files, then run %s", t.Dir, hint.Run("apply", "-continue")),
			Abort:  abortApply}, nil
	case len(state.Pending) > 0:
		return &Op{Verb: "apply",
			What:   fmt.Sprintf("an apply stopped before %s (interrupted, or the patch did not apply)", state.Pending[0]),
			Finish: hint.Sprintf("%s (after fixing the patch, if it did not apply)", hint.Run("apply")),
			Abort:  abortApply}, nil
	case inAm:
		return &Op{Verb: "git am",
			What:   "a `git am` session that nomadfork did not start is stopped in " + t.Dir,
			Finish: hint.Sprintf("`git am --continue` in %s", t.Dir),
			Abort:  hint.Sprintf("`git am --abort` in %s", t.Dir)}, nil
	}
	return nil, nil
}

// The ways to abort a stopped rebase or apply.
var (
	abortRebase = hint.Sprintf("%s (restores the work tree; pin, patches/ and CHANGELOG.md are untouched until a rebase completes)", hint.Run("rebase", "-abort"))
	abortApply  = hint.Sprintf("%s (keeps the patches applied so far)", hint.Run("apply", "-abort"))
)

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
		ok, err := t.HasRepo(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return hint.Errorf("no work tree at %s: run %s (or `make`) first", t.Dir, hint.Run("apply"))
		}
		base, err := t.Base(ctx)
		if err != nil {
			return err
		}
		if base == "" {
			return hint.Errorf("%s has no %q branch (the base ref), so nomadfork cannot tell which commits are the series; run %s to recreate it", t.Dir, BaseBranch, hint.Run("apply"))
		}
		if err := t.baseUnmoved(ctx, n.Verb); err != nil {
			return err
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
			again := hint.Run(n.Verb)
			advice := hint.Sprintf("run `git -C %s checkout -B %s` (the branch moves to HEAD, keeping its commits), then %s again", t.Dir, ForkBranch, again)
			if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", ForkBranch, "HEAD"); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				advice = hint.Sprintf("run `git -C %s checkout %s`, pick the commits of %s you want to keep onto it (`git -C %s cherry-pick %s..%s`), then %s again", t.Dir, ForkBranch, head, t.Dir, ForkBranch, head, again)
				if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", "HEAD", ForkBranch); err == nil {
					// HEAD (upstream, say) has no commits of its own:
					// there is nothing to pick.
					advice = hint.Sprintf("run `git -C %s checkout %s` (HEAD has no commits the branch lacks), then %s again", t.Dir, ForkBranch, again)
				} else if ctx.Err() != nil {
					return ctx.Err()
				}
			}
			return &RefusalError{
				What: hint.Sprintf("HEAD of %s is %s at %s, not the tip of the %q branch: %s would take the commits up to HEAD as the whole series and lose the later patches", t.Dir, where, head, ForkBranch, again),
				Hint: advice,
			}
		}
	}
	if n.Clean {
		dirty, err := t.Repo.Status(ctx)
		if err != nil {
			return err
		}
		if len(dirty) > 0 {
			return &RefusalError{What: hint.Sprintf("%s has uncommitted changes:", t.Dir), Items: dirty,
				Hint: hint.Sprintf("commit them (then %s) or stash them first", hint.Run("extract"))}
		}
	}
	return nil
}

// ErrNothing is returned by Apply for -continue or -abort without an apply
// in progress.
var ErrNothing = errors.New("no apply in progress")

// Unapplied says how HEAD differs from patches applied on base, the
// line's series on its pinned upstream: "" when HEAD is exactly that, on
// the fork branch with no operation in progress (uncommitted changes are
// the caller's to judge). What build and release label their binary by.
func (t *Tree) Unapplied(ctx context.Context, base string, patches []series.Patch) (string, error) {
	ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD")
	if err != nil || ref != "refs/heads/"+ForkBranch {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if err != nil {
			return "HEAD is detached, not on the " + ForkBranch + " branch", nil
		}
		return "HEAD is on the branch " + strings.TrimPrefix(ref, "refs/heads/") + ", not on " + ForkBranch, nil
	}
	op, err := t.InProgress(ctx)
	if err != nil {
		return "", err
	}
	if op != nil {
		return op.What, nil
	}
	if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", base, "HEAD"); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "HEAD is not based on the pinned upstream", nil
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return "", err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return "", err
	}
	if head == state.Applied && state.Base == base && len(state.Resolved) == 0 && sameHashes(state.Hashes, series.PatchHashes(patches)) {
		// Applied from patches/ as they are (a patch edited by hand
		// re-exports with other index lines until extracted).
		return "", nil
	}
	files, err := series.Export(ctx, t.Repo, base, "HEAD")
	if err != nil {
		return "", err
	}
	have := map[string][]byte{}
	for _, p := range patches {
		have[p.Name] = p.Data
	}
	var differ, missing []string
	inHead := map[string]bool{}
	for _, f := range files {
		inHead[f.Name] = true
		if d, ok := have[f.Name]; !ok || !bytes.Equal(d, f.Data) {
			differ = append(differ, f.Name)
		}
	}
	for _, p := range patches {
		if !inHead[p.Name] {
			missing = append(missing, p.Name)
		}
	}
	var why []string
	if len(differ) > 0 {
		why = append(why, fmt.Sprintf("%d commit(s) of HEAD differ from patches/ (%s)", len(differ), strings.Join(differ, ", ")))
	}
	if len(missing) > 0 {
		why = append(why, fmt.Sprintf("HEAD lacks %d patch(es) of patches/ (%s)", len(missing), strings.Join(missing, ", ")))
	}
	return strings.Join(why, "; "), nil
}

func sameHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// CanReapply refuses what would make apply refuse after verb edited the
// series (drop: it edits a patch, then applies the series): a moved base
// branch, a HEAD on another branch than the fork's. It refuses before the
// verb's first write. A detached HEAD passes: the series is then not
// applied, and the verb says so.
func (t *Tree) CanReapply(ctx context.Context, verb string) error {
	if err := t.baseUnmoved(ctx, verb); err != nil {
		return err
	}
	ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // detached
	}
	if ref == "refs/heads/"+ForkBranch {
		return nil
	}
	if ok, err := t.HasRepo(ctx); !ok || err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil || head == "" {
		return err
	}
	return t.offForkBranch(ctx, verb, ref, nil)
}

// baseUnmoved refuses when commits were made on the base branch. The tool
// imports upstream as a root commit and owns the branch that names it: a
// commit made there by hand (with the branch checked out) moves it, and
// every commit count from it is then off by that many. The refusal names
// the commits, which of them the fork branch still lacks, and the commands
// that keep them and put the branch back.
func (t *Tree) baseUnmoved(ctx context.Context, verb string) error {
	if base, err := t.Base(ctx); err != nil || base == "" {
		return err // no base branch: nothing has moved it
	}
	if _, err := t.Repo.Run(ctx, "rev-parse", "--verify", "--quiet", BaseRef+"^"); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // a root commit: where apply put it
	}
	root, err := t.Repo.Line(ctx, "rev-list", "--max-parents=0", "--first-parent", BaseRef)
	if err != nil {
		return err
	}
	own, err := t.Repo.Lines(ctx, "log", "--format=%h %s", "--reverse", root+".."+BaseRef)
	if err != nil {
		return err
	}
	// Commits of the base branch the fork branch does not hold by content
	// ("+" lines of git cherry); none when the fork branch is missing.
	var lacking []string
	if fork, _ := t.Repo.ResolveCommit(ctx, "refs/heads/"+ForkBranch); fork != "" {
		lines, err := t.Repo.Lines(ctx, "cherry", "--abbrev", ForkBranch, BaseRef, root)
		if err != nil {
			return err
		}
		for _, l := range lines {
			if h, ok := strings.CutPrefix(l, "+ "); ok {
				lacking = append(lacking, h)
			}
		}
	}
	short := root
	if len(short) > 12 {
		short = short[:12]
	}
	again := hint.Run(verb)
	if verb == "" {
		again = hint.Run("apply")
	}
	pick := "the fork branch holds them all already"
	if len(lacking) > 0 {
		pick = fmt.Sprintf("pick the ones the fork branch lacks onto it (`git -C %s cherry-pick %s`)", t.Dir, strings.Join(lacking, " "))
	}
	return &RefusalError{
		What: hint.Sprintf("the %q branch of %s, which nomadfork owns, has moved: %d commit(s) were made on it, on top of the upstream it imported (%s), so it no longer tells the series from upstream:",
			BaseBranch, t.Dir, len(own), short),
		Items: own,
		Hint: hint.Sprintf("keep them on the %q branch and put %q back: run `git -C %s checkout %s`; %s; then `git -C %s branch -f %s %s`, and run %s again",
			ForkBranch, BaseBranch, t.Dir, ForkBranch, pick, t.Dir, BaseBranch, short, again),
	}
}
