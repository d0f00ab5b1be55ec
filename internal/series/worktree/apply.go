package worktree

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// ApplyOptions control Apply.
type ApplyOptions struct {
	// Force discards uncommitted changes, unexported commits and a stopped
	// apply instead of refusing.
	Force bool
	// Continue resumes an apply that stopped at a conflict, after the user
	// resolved it and staged the result.
	Continue bool
}

// RefusalError is returned when an operation would lose work.
type RefusalError struct {
	// What says what would be lost.
	What string
	// Items lists the affected files or commits.
	Items []string
	// Hint says how to proceed.
	Hint string
}

func (e *RefusalError) Error() string {
	var b strings.Builder
	b.WriteString("refusing: " + e.What)
	const max = 20
	for i, it := range e.Items {
		if i == max {
			fmt.Fprintf(&b, "\n\t… and %d more", len(e.Items)-max)
			break
		}
		b.WriteString("\n\t" + it)
	}
	if e.Hint != "" {
		b.WriteString("\n" + e.Hint)
	}
	return b.String()
}

// ConflictError is returned when a patch does not apply.
type ConflictError struct {
	// Patch is the file name of the patch that failed.
	Patch string
	// Files are the files with conflicts or rejected hunks.
	Files []string
	// Hunks locate the rejected hunks as path:line of the patch's preimage.
	Hunks []string
	// Output is what git printed.
	Output string
	// Resume says how to go on.
	Resume string
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "patch %s does not apply", e.Patch)
	if len(e.Files) > 0 {
		b.WriteString("\nconflicts in:")
		for _, f := range e.Files {
			b.WriteString("\n\t" + f)
		}
	}
	if len(e.Hunks) > 0 {
		b.WriteString("\nrejected hunks (file:line before the patch):")
		for _, h := range e.Hunks {
			b.WriteString("\n\t" + h)
		}
	}
	if e.Resume != "" {
		b.WriteString("\n" + e.Resume)
	}
	return b.String()
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
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return err
	}
	start, reset := 0, true
	switch {
	case opts.Continue && inAm:
		start, err = t.continueAm(ctx, base, state, patches)
		if err != nil {
			return err
		}
		reset = false
	case opts.Continue && len(state.Pending) == 0:
		return fmt.Errorf("nothing to continue: no apply is in progress in %s", t.Dir)
	case inAm && !opts.Force:
		stopped := "a patch"
		if len(state.Pending) > 0 {
			stopped = state.Pending[0]
		}
		return &RefusalError{
			What: fmt.Sprintf("an apply stopped at %s and its resolution would be lost", stopped),
			Hint: "resolve the conflicts in " + t.Dir + ", `git add` the files, then run `nomadfork apply --continue`;\n" +
				"or run `nomadfork apply --force` to discard the work in progress and start over",
		}
	case inAm:
		if _, err := t.Repo.Run(ctx, "am", "--abort"); err != nil {
			return err
		}
	}
	if reset {
		start, reset, err = t.checkDiscard(ctx, base, state, patches, opts.Force)
		if err != nil {
			return err
		}
	}
	if _, err := t.Repo.Run(ctx, "update-ref", BaseRef, base); err != nil {
		return err
	}
	if reset {
		if _, err := t.Repo.Run(ctx, "checkout", "--quiet", "--force", "-B", ForkBranch, base); err != nil {
			return err
		}
		if _, err := t.Repo.Run(ctx, "clean", "--quiet", "-d", "--force", "--force"); err != nil {
			return err
		}
		state = &State{Base: base}
	}
	state.Base = base
	return t.applyFrom(ctx, state, patches, start)
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
			What: fmt.Sprintf("%s has commits but no %q branch: it is not a work tree nomadfork made", t.Dir, BaseBranch),
			Hint: "move it away, or run `nomadfork apply --force` to replace its content",
		}
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return 0, true, err
	}
	if len(dirty) > 0 && !force {
		return 0, true, &RefusalError{
			What:  fmt.Sprintf("%s has uncommitted changes that applying would overwrite:", t.Dir),
			Items: dirty,
			Hint:  "commit them (then `nomadfork extract`), or stash them; `nomadfork apply --force` discards them",
		}
	}
	files, err := series.Export(ctx, t.Repo, oldBase, "HEAD")
	if err != nil {
		return 0, true, err
	}
	matched, err := series.Matching(files, patches)
	if err != nil {
		return 0, true, err
	}
	if head != state.Applied && matched < len(files) && !force {
		var items []string
		for _, f := range files[matched:] {
			items = append(items, f.Name)
		}
		return 0, true, &RefusalError{
			What:  fmt.Sprintf("%s has commits that differ from patches/ and would be lost:", t.Dir),
			Items: items,
			Hint:  "run `nomadfork extract` to write them to patches/, or `nomadfork apply --force` to discard them",
		}
	}
	if oldBase == base && matched == len(files) && len(dirty) == 0 && len(state.Resolved) == 0 {
		return matched, false, nil
	}
	return 0, true, nil
}

// continueAm finishes the stopped `git am` and returns the index of the next
// patch to apply.
func (t *Tree) continueAm(ctx context.Context, base string, state *State, patches []series.Patch) (int, error) {
	if len(state.Pending) == 0 {
		return 0, fmt.Errorf("a `git am` session is in progress in %s that nomadfork did not start; finish it with `git am --continue` or `git am --abort`", t.Dir)
	}
	if state.Base != base {
		return 0, fmt.Errorf("the pin changed since the apply stopped; run `nomadfork apply --force` to start over")
	}
	unmerged, err := t.Repo.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return 0, err
	}
	if len(unmerged) > 0 {
		return 0, &ConflictError{
			Patch:  state.Pending[0],
			Files:  unmerged,
			Resume: "resolve these conflicts, `git add` the files, then run `nomadfork apply --continue` again",
		}
	}
	if _, err := t.Repo.Run(ctx, "am", "--continue"); err != nil {
		return 0, fmt.Errorf("continuing %s: %w", state.Pending[0], err)
	}
	fmt.Fprintf(t.Log, "applied %s (resolved by hand)\n", state.Pending[0])
	state.Resolved = append(state.Resolved, state.Pending[0])
	state.Pending = state.Pending[1:]
	if len(state.Pending) == 0 {
		return len(patches), nil
	}
	for i, p := range patches {
		if p.Name == state.Pending[0] {
			return i, nil
		}
	}
	return 0, fmt.Errorf("patch %s, next in the stopped apply, is no longer in the series; run `nomadfork apply --force` to start over", state.Pending[0])
}

var patchFailedRE = regexp.MustCompile(`(?m)^error: patch failed: (.+:[0-9]+)$`)
var doesNotApplyRE = regexp.MustCompile(`(?m)^error: (.+): (?:patch does not apply|does not exist in index|already exists in (?:index|working directory))$`)

func (t *Tree) applyFrom(ctx context.Context, state *State, patches []series.Patch, start int) error {
	state.Pending = nil
	for _, p := range patches[start:] {
		state.Pending = append(state.Pending, p.Name)
	}
	if err := t.SaveState(ctx, state); err != nil {
		return err
	}
	for _, p := range patches[start:] {
		fmt.Fprintf(t.Log, "applying %s\n", p.Name)
		cmd := t.Repo.Command(ctx, "am", "--3way", "--keep-cr", "--committer-date-is-author-date", "--quiet", p.Path)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return t.conflict(ctx, p.Name, string(out))
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
	state.Applied = ""
	if len(state.Resolved) == 0 {
		state.Applied = head
	} else {
		fmt.Fprintf(t.Log, "resolved by hand: %s; run `nomadfork extract` to save the resolutions to patches/\n", strings.Join(state.Resolved, ", "))
	}
	return t.SaveState(ctx, state)
}

func (t *Tree) conflict(ctx context.Context, name, output string) error {
	e := &ConflictError{
		Patch:  name,
		Output: output,
		Resume: "resolve the conflicts in " + t.Dir + ", `git add` the files, then run `nomadfork apply --continue`;\n" +
			"or run `nomadfork apply --force` to start over",
	}
	files := map[string]bool{}
	unmerged, err := t.Repo.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
	if err != nil {
		return err
	}
	for _, f := range unmerged {
		files[f] = true
	}
	for _, m := range patchFailedRE.FindAllStringSubmatch(output, -1) {
		e.Hunks = append(e.Hunks, m[1])
		if i := strings.LastIndex(m[1], ":"); i > 0 {
			files[m[1][:i]] = true
		}
	}
	for _, m := range doesNotApplyRE.FindAllStringSubmatch(output, -1) {
		files[m[1]] = true
	}
	for f := range files {
		e.Files = append(e.Files, f)
	}
	sort.Strings(e.Files)
	return e
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
	matched, err := series.Matching(files, patches)
	if err != nil {
		return nil, err
	}
	if head == state.Applied && len(state.Resolved) == 0 {
		return nil, nil
	}
	var names []string
	for _, f := range files[matched:] {
		names = append(names, f.Name)
	}
	return names, nil
}
