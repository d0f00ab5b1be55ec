package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// ApplyOptions control Apply.
type ApplyOptions struct {
	// Force discards uncommitted changes, unexported commits and a stopped
	// apply instead of refusing.
	Force bool
	// Continue resumes an apply that stopped at a conflict, after the user
	// resolved it and staged the result.
	Continue bool
	// Abort ends a stopped apply, keeping the patches applied so far.
	Abort bool
	// AllowEmpty accepts an empty or missing series (the apply verb's
	// SeriesAndBase).
	AllowEmpty bool
}

// Check refuses flags that exclude each other.
func (o ApplyOptions) Check() error {
	return cli.AtMostOne(cli.Flag{Name: "force", Set: o.Force}, cli.Flag{Name: "continue", Set: o.Continue}, cli.Flag{Name: "abort", Set: o.Abort})
}

// Apply makes the work tree hold base plus one commit per patch. It resumes
// where an earlier apply stopped and keeps commits that already match the
// series, so running it twice does nothing the second time. It refuses to
// discard uncommitted changes, commits that differ from patches/ and
// stopped applies unless opts.Force is set.
func (t *Tree) Apply(ctx context.Context, base string, patches []series.Patch, opts ApplyOptions) error {
	state, err := t.LoadState(ctx)
	if err != nil {
		return err
	}
	if state.Rebase != nil {
		op, err := t.InProgress(ctx)
		if err != nil {
			return err
		}
		return op.Refuse("apply")
	}
	if op, err := t.InProgress(ctx); err != nil {
		return err
	} else if op != nil && strings.HasPrefix(op.Verb, "git ") && op.Verb != "git am" {
		// The user's rebase, merge or cherry-pick: not the tool's to
		// discard, even with -force.
		return op.Refuse("apply")
	}
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return err
	}
	if !opts.Abort && !opts.Continue {
		if err := t.onForkBranch(ctx, "apply", opts.Force); err != nil {
			return err
		}
		// Not even -force discards commits made on the base branch:
		// resetting it would drop them without a word.
		if err := t.baseUnmoved(ctx, "apply"); err != nil {
			return err
		}
	}
	if opts.Abort {
		if len(state.Pending) == 0 {
			return fmt.Errorf("%w in %s: nothing to abort", ErrNothing, t.Dir)
		}
		if err := t.Repo.AmAbort(ctx); err != nil {
			return err
		}
		hint.Fprint(t.Log, hint.Sprintf("apply aborted before %s; %s keeps upstream and the patches applied so far; "+
			"%s applies the rest (%s refuses to drop them until then)", state.Pending[0], t.Dir, hint.Run("apply"), hint.Run("extract")))
		state.Unapplied, state.Pending = state.Pending, nil
		return t.SaveState(ctx, state)
	}
	start, reset := 0, true
	if opts.Continue && len(state.Pending) > 0 && state.StopHead != "" {
		// An interrupted -continue may have committed the resolution.
		head, err := t.Head(ctx)
		if err != nil {
			return err
		}
		if parent, _ := t.Repo.ResolveCommit(ctx, "HEAD^"); head != state.StopHead && parent == state.StopHead {
			if inAm {
				if _, err := t.Repo.Run(ctx, "am", "--quit"); err != nil {
					return err
				}
				inAm = false
			}
			fmt.Fprintf(t.Log, "applied %s (resolved by hand)\n", state.Pending[0])
			state.Resolved = append(state.Resolved, state.Pending[0])
			state.Pending, state.StopHead = state.Pending[1:], ""
			if err := t.SaveState(ctx, state); err != nil {
				return err
			}
			start = len(patches)
			if len(state.Pending) > 0 {
				start = -1
				for i, p := range patches {
					if p.Name == state.Pending[0] {
						start = i
					}
				}
				if start < 0 {
					return hint.Errorf("patch %s, next in the stopped apply, is no longer in the series; run %s, then %s", state.Pending[0], hint.Run("apply", "-abort"), hint.Run("apply"))
				}
			}
			state.Base = base
			return t.applyFrom(ctx, state, patches, start)
		}
	}
	switch {
	case opts.Continue && inAm:
		start, err = t.continueAm(ctx, base, state, patches)
		if err != nil {
			return err
		}
		reset = false
	case opts.Continue && len(state.Pending) == 0 && len(state.Resolved) > 0:
		// An interrupted -continue that had applied the last patch.
		hint.Fprint(t.Log, hint.Sprintf("the apply is complete; resolved by hand: %s; run %s to save the resolutions to patches/", strings.Join(state.Resolved, ", "), hint.Run("extract")))
		return nil
	case opts.Continue && len(state.Pending) == 0 && len(state.Unapplied) > 0:
		// -abort ended the stopped apply; the rest is a new apply's.
		return hint.Errorf("%w in %s: the apply was aborted before %s; run %s to apply the rest", ErrNothing, t.Dir, state.Unapplied[0], hint.Run("apply"))
	case opts.Continue && len(state.Pending) == 0:
		return fmt.Errorf("%w in %s: nothing to continue", ErrNothing, t.Dir)
	case inAm && !opts.Force:
		op, err := t.InProgress(ctx)
		if err != nil {
			return err
		}
		return &RefusalError{What: hint.Sprintf("%s, and its resolution would be lost", op.What), Hint: op.advice()}
	case inAm:
		if err := t.Repo.AmAbort(ctx); err != nil {
			return err
		}
	}
	if reset && !opts.Force && !inAm && len(state.Pending) > 0 && state.Base == base {
		// An apply interrupted between patches: HEAD holds exactly the
		// patches before the pending one (some perhaps resolved by hand).
		idx := -1
		for i, p := range patches {
			if p.Name == state.Pending[0] {
				idx = i
			}
		}
		n, err := t.Repo.Line(ctx, "rev-list", "--count", base+"..HEAD")
		if err != nil {
			return err
		}
		dirty, err := t.Repo.Status(ctx)
		if err != nil {
			return err
		}
		if idx >= 0 && n == fmt.Sprint(idx) && len(dirty) == 0 {
			start, reset = idx, false
		}
	}
	offFork := false
	if reset && opts.Force {
		// -force checks the fork branch out afresh: whatever branch HEAD
		// was on (upstream, say) keeps its commits.
		head, err := t.Head(ctx)
		if err != nil {
			return err
		}
		if ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD"); head != "" && (err != nil || ref != "refs/heads/"+ForkBranch) {
			offFork = true
		}
	}
	if reset && !offFork {
		start, reset, err = t.checkDiscard(ctx, base, state, patches, opts.Force)
		if err != nil {
			return err
		}
	}
	if _, err := t.Repo.Run(ctx, "update-ref", BaseRef, base); err != nil {
		return err
	}
	if reset {
		if err := t.Repo.Switch(ctx, ForkBranch, base); err != nil {
			return err
		}
		if _, err := t.Repo.Run(ctx, "clean", "--quiet", "-d", "--force", "--force"); err != nil {
			return err
		}
		state = &State{Base: base}
	} else if !opts.Continue {
		// Keep the commits that match patches/, drop the later ones.
		n, err := t.Repo.Line(ctx, "rev-list", "--count", base+"..HEAD")
		if err != nil {
			return err
		}
		if n != fmt.Sprint(start) {
			if err := t.Repo.ResetHard(ctx, fmt.Sprintf("HEAD~%d", subtract(n, start))); err != nil {
				return err
			}
		}
	}
	state.Base = base
	return t.applyFrom(ctx, state, patches, start)
}

// onForkBranch refuses to apply on any HEAD but the fork branch's: on
// the upstream branch (which the tool owns), another branch or a detached
// HEAD, apply would commit the series there. With force it lets apply go
// on, which then checks out the fork branch afresh.
//
// verb is the verb refused: drop, which edits a patch and then applies
// the series, refuses before its edit.
func (t *Tree) onForkBranch(ctx context.Context, verb string, force bool) error {
	if force {
		return nil
	}
	if ok, err := t.HasRepo(ctx); !ok || err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil || head == "" {
		return err
	}
	ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD")
	return t.offForkBranch(ctx, verb, ref, err)
}

// offForkBranch refuses when HEAD, whose symbolic ref is ref (refErr: it
// has none, it is detached), is not on the fork branch.
func (t *Tree) offForkBranch(ctx context.Context, verb, ref string, refErr error) error {
	if refErr == nil && ref == "refs/heads/"+ForkBranch {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	where := "detached"
	if refErr == nil {
		where = "on the branch " + strings.TrimPrefix(ref, "refs/heads/")
	}
	short, _ := t.Repo.Line(ctx, "rev-parse", "--short", "HEAD")
	return &RefusalError{
		What: hint.Sprintf("HEAD of %s is %s at %s, not on the %q branch the series is applied on: %s would commit the series there", t.Dir, where, short, ForkBranch, hint.Run(verb)),
		Hint: hint.Sprintf("get back with `git -C %s checkout %s`, then run %s; commits of yours on HEAD that the series should hold: pick them onto %s first (`git -C %s cherry-pick <commit>...`, then %s); %s checks out %s afresh, discarding its unextracted commits",
			t.Dir, ForkBranch, hint.Run(verb), ForkBranch, t.Dir, hint.Run("extract"), hint.Run("apply", "-force"), ForkBranch),
	}
}

// checkDiscard decides whether the existing commits can be kept (and from
// which patch to go on) or must be replaced, and refuses if replacing them
// would lose work.
func (t *Tree) checkDiscard(ctx context.Context, base string, state *State, patches []series.Patch, force bool) (start int, reset bool, err error) {
	head, err := t.Head(ctx)
	if err != nil || head == "" {
		return 0, true, err
	}
	oldBase, err := t.Base(ctx)
	if err != nil {
		return 0, true, err
	}
	if oldBase == "" {
		if force {
			return 0, true, nil
		}
		return 0, true, &RefusalError{
			What: hint.Sprintf("%s has commits but no %q branch: it is not a work tree nomadfork made", t.Dir, BaseBranch),
			Hint: hint.Sprintf("move it away, or run %s to replace its content", hint.Run("apply", "-force")),
		}
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return 0, true, err
	}
	if len(dirty) > 0 && !force {
		return 0, true, &RefusalError{
			What:  hint.Sprintf("%s has uncommitted changes that applying would overwrite:", t.Dir),
			Items: dirty,
			Hint:  hint.Sprintf("commit them (then %s), or stash them; %s discards them", hint.Run("extract"), hint.Run("apply", "-force")),
		}
	}
	files, err := series.Export(ctx, t.Repo, oldBase, "HEAD")
	if err != nil {
		return 0, true, err
	}
	matched := series.Matching(files, patches)
	if items := reallyDiffer(files[matched:], patches, state); head != state.Applied && len(items) > 0 && !force {
		advice := hint.Sprintf("run %s to write them to patches/, or %s to discard them", hint.Run("extract"), hint.Run("apply", "-force"))
		if ref, err := t.Repo.Line(ctx, "symbolic-ref", "--quiet", "HEAD"); err != nil || ref != "refs/heads/"+ForkBranch {
			advice = hint.Sprintf("HEAD is not on the %q branch: put its commits there with `git -C %s checkout -B %s`, then run %s; or run %s to discard them", ForkBranch, t.Dir, ForkBranch, hint.Run("extract"), hint.Run("apply", "-force"))
		} else if edited := editedSince(patches, state); len(edited) > 0 {
			// extract would refuse the edited patch files: say how to
			// keep both.
			keep, err := t.keepBoth(ctx, state, edited)
			if err != nil {
				return 0, true, err
			}
			if !keep.IsZero() {
				advice = keep
			}
		}
		return 0, true, &RefusalError{
			What:  hint.Sprintf("%s has commits that differ from patches/ and would be lost:", t.Dir),
			Items: items,
			Hint:  advice,
		}
	}
	if oldBase == base && len(dirty) == 0 && len(state.Resolved) == 0 && (matched == len(files) || head == state.Applied) {
		// The commits after the matching ones are the series as last
		// applied or extracted, since changed in patches/: only they go.
		return matched, false, nil
	}
	return 0, true, nil
}

// reallyDiffer names the commits' patches that neither patches/ holds
// nor nomadfork last wrote or applied (state.Hashes): the work a reset
// would lose. A commit that is the series as last applied is not, even
// when its patch file was edited since.
func reallyDiffer(files []series.File, patches []series.Patch, state *State) []string {
	have := map[string]string{}
	for _, p := range patches {
		have[p.Name] = series.Hash(p.Data)
	}
	var names []string
	for _, f := range files {
		h := series.Hash(f.Data)
		if have[f.Name] == h || state.Hashes[f.Name] == h {
			continue
		}
		names = append(names, f.Name)
	}
	return names
}

// editedSince names the patch files of patches/ changed, added or removed
// since nomadfork last wrote or applied them.
func editedSince(patches []series.Patch, state *State) []string {
	if len(state.Hashes) == 0 {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range patches {
		seen[p.Name] = true
		if state.Hashes[p.Name] != series.Hash(p.Data) {
			names = append(names, p.Name)
		}
	}
	for name := range state.Hashes {
		if !seen[name] {
			names = append(names, name)
		}
	}
	return names
}

// KeepBranch is the branch the keep-both sequence saves the commits on.
const KeepBranch = "nomadfork-keep"

// keepBoth returns the sequence that keeps both patch files edited by
// hand and commits not extracted yet, when the commits lie on top of the
// series as last applied or extracted: save them on a branch, apply the
// edited patches/, pick the commits onto it, extract. Zero when the
// commits do not lie on top (then they and the edits change the same
// patches: only the user can merge them).
func (t *Tree) keepBoth(ctx context.Context, state *State, edited []string) (hint.Message, error) {
	if state.Applied == "" {
		return hint.Message{}, nil
	}
	head, err := t.Head(ctx)
	if err != nil || head == state.Applied {
		return hint.Message{}, err
	}
	if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", state.Applied, "HEAD"); err != nil {
		if ctx.Err() != nil {
			return hint.Message{}, ctx.Err()
		}
		return hint.Message{}, nil
	}
	first := ""
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return hint.Message{}, err
	}
	if len(dirty) > 0 {
		first = "commit or stash the uncommitted changes, then "
	}
	applied := state.Applied
	if len(applied) > 12 {
		applied = applied[:12]
	}
	return hint.Sprintf("to keep both the edited patch files (%s) and the commits after the series as last applied (%s..HEAD), %srun in turn:\n"+
		"\tgit -C %s branch -f %s HEAD\n\t%s\n\tgit -C %s cherry-pick %s..%s   (a conflict: resolve it, `git cherry-pick --continue`)\n\t%s\n\tgit -C %s branch -D %s\n"+
		"or keep one side only: %s discards the edits, %s the commits",
		strings.Join(edited, ", "), applied, first,
		t.Dir, KeepBranch, hint.Run("apply", "-force"), t.Dir, applied, KeepBranch, hint.Run("extract"), t.Dir, KeepBranch,
		hint.Run("extract", "-force"), hint.Run("apply", "-force")), nil
}

// continueAm finishes the stopped `git am` and returns the index of the next
// patch to apply.
func (t *Tree) continueAm(ctx context.Context, base string, state *State, patches []series.Patch) (int, error) {
	if len(state.Pending) == 0 {
		return 0, fmt.Errorf("a `git am` session is in progress in %s that nomadfork did not start; finish it with `git am --continue` or `git am --abort` there", t.Dir)
	}
	if state.Base != base {
		return 0, hint.Errorf("the pin changed since the apply stopped at %s; restore upstream.json, or run %s and then %s", state.Pending[0], hint.Run("apply", "-abort"), hint.Run("apply"))
	}
	unmerged, err := t.Repo.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return 0, err
	}
	if len(unmerged) > 0 {
		return 0, &ConflictError{
			Patch: state.Pending[0], Conflict: true,
			Files:  unmerged,
			Resume: hint.Sprintf("resolve these conflicts, `git add` the files, then run %s again", hint.Run("apply", "-continue")),
		}
	}
	if err := t.Repo.AmContinue(ctx); err != nil {
		var am *git.AmError
		if errors.As(err, &am) && strings.Contains(am.Output, "No changes") {
			// Kept the base's side: -continue would refuse it again and
			// again. apply never changes the series, so dropping the
			// patch is the user's call.
			name := state.Pending[0]
			return 0, hint.Errorf("the resolution leaves %s empty: the tree already holds its change, or the resolution dropped it, and apply never drops a patch.\n"+
				"Resolve it keeping its change, `git add` the files and run %s; or run %s (it keeps the patches before %s) and move the series with %s, which drops a patch its target carries",
				name, hint.Run("apply", "-continue"), hint.Run("apply", "-abort"), name, hint.Run("rebase", "-onto", "<version>"))
		}
		return 0, hint.Errorf("continuing %s: %w; `git add` the resolved files, then run %s", state.Pending[0], err, hint.Run("apply", "-continue"))
	}
	fmt.Fprintf(t.Log, "applied %s (resolved by hand)\n", state.Pending[0])
	state.Resolved = append(state.Resolved, state.Pending[0])
	state.Pending, state.StopHead = state.Pending[1:], ""
	if len(state.Pending) == 0 {
		return len(patches), nil
	}
	for i, p := range patches {
		if p.Name == state.Pending[0] {
			return i, nil
		}
	}
	return 0, hint.Errorf("patch %s, next in the stopped apply, is no longer in the series; run %s, then %s", state.Pending[0], hint.Run("apply", "-abort"), hint.Run("apply"))
}

func (t *Tree) applyFrom(ctx context.Context, state *State, patches []series.Patch, start int) error {
	state.Pending, state.Unapplied = nil, nil
	for _, p := range patches[start:] {
		state.Pending = append(state.Pending, p.Name)
	}
	if err := t.SaveState(ctx, state); err != nil {
		return err
	}
	for i, p := range patches[start:] {
		fmt.Fprintf(t.Log, "applying %s (%d of %d)\n", p.Name, start+i+1, len(patches))
		if err := t.applyOne(ctx, p); err != nil {
			var ce *ConflictError
			if errors.As(err, &ce) && ce.Conflict {
				if head, herr := t.Head(ctx); herr == nil {
					state.StopHead = head
					if serr := t.SaveState(ctx, state); serr != nil {
						return errors.Join(err, serr)
					}
				}
			}
			return err
		}
		state.Pending = state.Pending[1:]
		if err := t.SaveState(ctx, state); err != nil {
			return err
		}
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	state.Hashes = series.PatchHashes(patches)
	state.Applied = ""
	if len(state.Resolved) == 0 {
		state.Applied = head
	} else {
		hint.Fprint(t.Log, hint.Sprintf("resolved by hand: %s; run %s to save the resolutions to patches/", strings.Join(state.Resolved, ", "), hint.Run("extract")))
	}
	return t.SaveState(ctx, state)
}

// applyOne applies p with a three-way fallback. A conflict stays for the
// user to resolve; an interruption or a patch that does not apply at all is
// undone, so HEAD holds whole patches only and a plain apply resumes.
func (t *Tree) applyOne(ctx context.Context, p series.Patch) error {
	defer progress.Begin("applying " + p.Name)()
	before, err := t.Head(ctx)
	if err != nil {
		return err
	}
	err = t.Repo.Am(ctx, p.Path, true)
	var am *git.AmError
	switch {
	case err == nil:
		// git am's three-way fallback skips a patch whose changes are in
		// the tree already ("No changes -- Patch already applied"): it
		// made no commit, so the series on disk and the work tree would
		// no longer match one for one, and extract would delete the file.
		after, herr := t.Head(ctx)
		if herr != nil || after != before {
			return herr
		}
		return &ConflictError{Patch: p.Name, Output: "it changes nothing: the patches before it (or upstream) make its changes already",
			Resume: hint.Sprintf("%s holds upstream and the patches before it. If %s is a copy of an earlier patch, delete it; if it should change more, fix it; then run %s to go on",
				t.Dir, p.Path, hint.Run("apply"))}
	case errors.As(err, &am) && am.Unmerged:
		return &ConflictError{Patch: p.Name, Conflict: true, Files: am.Files, Hunks: am.Hunks, Output: am.Output,
			Resume: hint.Sprintf("resolve the conflicts in %s, `git add` the files, then run %s;\nor run %s to stop here, keeping the patches before it",
				t.Dir, hint.Run("apply", "-continue"), hint.Run("apply", "-abort"))}
	}
	// Undo the partial application, whatever stopped it: back to HEAD
	// before it, without the files it created.
	bg := context.WithoutCancel(ctx)
	if _, rerr := t.Repo.Recover(bg); rerr != nil {
		return errors.Join(err, rerr)
	}
	if aerr := t.Repo.AmAbort(bg); aerr != nil {
		return errors.Join(err, aerr)
	}
	if _, rerr := t.Repo.Run(bg, "reset", "--quiet", "--hard", before); rerr != nil {
		return errors.Join(err, rerr)
	}
	if am != nil && am.DiskFull() {
		// Not the patch's fault: the caller says where to free space.
		return fmt.Errorf("applying %s: %w", p.Name, am)
	}
	if am != nil {
		ce := &ConflictError{Patch: p.Name, Files: am.Files, Hunks: am.Hunks, Output: am.Output,
			Resume: hint.Sprintf("%s holds upstream and the patches before it. The patch file is damaged or does not fit the pinned upstream: "+
				"fix %s (`git diff -- %s` shows local edits), then run %s to go on", t.Dir, p.Path, p.Path, hint.Run("apply"))}
		if bytes.Contains(p.Data, []byte("\r\n")) {
			ce.Cause = fmt.Sprintf("%s has CRLF line endings (patch files use LF; an editor or checkout converted it): restore it (`git checkout -- %s`) or convert it (`sed -i 's/\\r$//' %s`)", p.Path, p.Path, p.Path)
		}
		return ce
	}
	return err
}

// Unexported returns the names of the work tree's commits that differ from
// patches/ and were not recorded as applied: the work a reset would lose.
func (t *Tree) Unexported(ctx context.Context, patches []series.Patch) ([]string, error) {
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	head, err := t.Head(ctx)
	if err != nil || head == "" {
		return nil, err
	}
	base, err := t.Base(ctx)
	if err != nil || base == "" {
		return nil, err
	}
	files, err := series.Export(ctx, t.Repo, base, "HEAD")
	if err != nil {
		return nil, err
	}
	matched := series.Matching(files, patches)
	if head == state.Applied && len(state.Resolved) == 0 {
		return nil, nil
	}
	var names []string
	for _, f := range files[matched:] {
		names = append(names, f.Name)
	}
	return names, nil
}

func subtract(n string, start int) int {
	var total int
	fmt.Sscan(n, &total)
	return total - start
}
