package worktree

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// ExtractOptions control Extract.
type ExtractOptions struct {
	// Force overwrites patch files changed since nomadfork last wrote or
	// applied them.
	Force bool
	// Txn is the directory transactions stage in (patches/).
	Txn string
}

// Extract writes the work tree's commits since the base to dir as patch
// files and records that the work tree now matches them, in one
// transaction. When the numbering changes, the Depends-On trailers of the
// commits are rewritten to the new numbers first; the Renumbering says
// which commits were matched to their old patch by position only and
// which trailers of new commits stayed as written.
func (t *Tree) Extract(ctx context.Context, dir string, opts ExtractOptions) ([]series.Change, *Renumbering, error) {
	if err := t.Require(ctx, Need{Verb: "extract", Base: true, NoOp: true, ForkTip: true}); err != nil {
		return nil, nil, err
	}
	base, err := t.Base(ctx)
	if err != nil {
		return nil, nil, err
	}
	if _, err := t.Repo.Run(ctx, "merge-base", "--is-ancestor", base, "HEAD"); err != nil {
		return nil, nil, fmt.Errorf("HEAD of %s is not based on the %q branch; check out the fork branch: %w", t.Dir, BaseBranch, err)
	}
	merges, err := t.Repo.Lines(ctx, "rev-list", "--merges", base+"..HEAD")
	if err != nil {
		return nil, nil, err
	}
	if len(merges) > 0 {
		return nil, nil, fmt.Errorf("the series must be linear, but %s..HEAD has merge commits %s; rebase them away", BaseBranch, strings.Join(merges, ", "))
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return nil, nil, err
	}
	if len(dirty) > 0 {
		fmt.Fprintf(t.Log, "note: %d uncommitted changes in %s are not extracted; commit them and extract again to include them\n", len(dirty), t.Dir)
	}
	old, err := series.ListAny(dir)
	if err != nil {
		return nil, nil, err
	}
	renum, err := t.renumber(ctx, base, old)
	if err != nil {
		return nil, nil, err
	}
	files, err := series.Export(ctx, t.Repo, base, "HEAD")
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 && len(old) > 0 {
		return nil, nil, fmt.Errorf("%w in %s: the work tree has no commits after the base; "+
			"if you really mean to empty the series, delete the files by hand", series.ErrEmpty, dir)
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return nil, nil, err
	}
	changes := series.Plan(files, old)
	// Patches an aborted apply never applied are missing from the work
	// tree by accident, not by a drop: not even -force removes them.
	lost, err := t.unappliedLost(ctx, state, changes, files, old)
	if err != nil {
		return nil, nil, err
	}
	if len(lost) > 0 {
		return nil, nil, &UnappliedError{Dir: dir, Tree: t.Dir, Files: lost}
	}
	if !opts.Force {
		written := map[string]bool{}
		for _, c := range changes {
			if c.Action == "unchanged" {
				written[c.Name] = true
			}
		}
		var edited, added []string
		for _, p := range old {
			h, ok := state.Hashes[p.Name]
			switch {
			case written[p.Name]:
			case ok && h != series.Hash(p.Data):
				edited = append(edited, p.Name)
			case !ok && len(state.Hashes) > 0:
				// Not in the series last applied or extracted: it came
				// from elsewhere (a git pull, a merge) and the work tree
				// never held it.
				added = append(added, p.Name)
			}
		}
		if len(edited) > 0 || len(added) > 0 {
			keep, err := t.keepBoth(ctx, state, append(append([]string{}, edited...), added...))
			if err != nil {
				return nil, nil, err
			}
			return nil, nil, &EditedError{Dir: dir, Files: edited, Added: added, Keep: keep}
		}
	}
	head, err := t.Head(ctx)
	if err != nil {
		return nil, nil, err
	}
	state.Base, state.Applied, state.Resolved, state.Pending, state.Unapplied = base, head, nil, nil, nil
	state.Hashes = series.Hashes(files)
	if err := t.writeSeries(ctx, opts.Txn, "extract into "+dir, dir, files, changes, state); err != nil {
		return nil, nil, err
	}
	return changes, renum, nil
}

// unappliedLost names the patch files of old that extract would delete or
// overwrite while an aborted apply is pending (state.Unapplied) although
// the work tree lacks their change: the patches the apply never reached,
// by name, and any other file extract would remove whose diff (by
// patch-id) no commit of the work tree holds, whatever its name, so a
// never-applied patch renamed by hand is not taken for a dropped one.
func (t *Tree) unappliedLost(ctx context.Context, state *State, changes []series.Change, files []series.File, old []series.Patch) ([]string, error) {
	if len(state.Unapplied) == 0 {
		return nil, nil
	}
	unapplied := map[string]bool{}
	for _, name := range state.Unapplied {
		unapplied[name] = true
	}
	have := map[string]bool{}
	for _, f := range files {
		id, err := t.patchID(ctx, f.Data)
		if err != nil {
			return nil, err
		}
		if id != "" {
			have[id] = true
		}
	}
	byName := map[string]series.Patch{}
	for _, p := range old {
		byName[p.Name] = p
	}
	var lost []string
	for _, c := range changes {
		name := c.Name
		switch c.Action {
		case "updated":
			if unapplied[name] {
				lost = append(lost, name)
			}
			continue
		case "renamed":
			name = c.From
		case "removed":
		default:
			continue
		}
		if unapplied[name] {
			lost = append(lost, name)
			continue
		}
		id, err := t.patchID(ctx, byName[name].Data)
		if err != nil {
			return nil, err
		}
		if id == "" || !have[id] {
			lost = append(lost, name)
		}
	}
	return lost, nil
}

// writeSeries makes dir hold files (changes being what that does) and
// records state, in one transaction.
func (t *Tree) writeSeries(ctx context.Context, txnDir, what, dir string, files []series.File, changes []series.Change, state *State) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing patches: %w", err)
	}
	if txnDir == "" {
		txnDir = filepath.Dir(dir)
	}
	tx, err := txn.Begin(txnDir, what)
	if err != nil {
		return err
	}
	data := map[string][]byte{}
	for _, f := range files {
		data[f.Name] = f.Data
	}
	for _, c := range changes {
		switch c.Action {
		case "updated", "added", "renamed":
			err = tx.WriteFile(filepath.Join(dir, c.Name), data[c.Name], 0o644)
		}
		if err != nil {
			tx.Abort()
			return err
		}
	}
	for _, c := range changes {
		switch c.Action {
		case "renamed":
			tx.Remove(filepath.Join(dir, c.From))
		case "removed":
			tx.Remove(filepath.Join(dir, c.Name))
		}
	}
	stateData, err := MarshalState(state)
	if err != nil {
		tx.Abort()
		return err
	}
	statePath, err := t.StatePath(ctx)
	if err != nil {
		tx.Abort()
		return err
	}
	if err := tx.WriteFile(statePath, stateData, 0o644); err != nil {
		tx.Abort()
		return err
	}
	return tx.Commit()
}

var dependsLineRE = regexp.MustCompile(`(?m)^Depends-On: ([0-9]{4})$`)

// Renumbering is what extract did to keep the Depends-On trailers true
// when the work tree's commits renumbered the series.
type Renumbering struct {
	// ByPosition are the commits matched to their old patch only by their
	// place in the series: neither the file name nor the diff matched.
	ByPosition []PositionMatch
	// Kept are the trailers of commits new to the series that name a
	// number whose patch moved or left: they stay as written.
	Kept []KeptDependency
}

// PositionMatch is a commit taken for an old patch by its position: it
// lies between two matched neighbours (or an end of the series) where as
// many old patches left the series as new commits came.
type PositionMatch struct {
	Patch string // the new patch file
	Was   string // the old patch file it replaces
}

// KeptDependency is a Depends-On trailer of a commit new to the series
// after a renumbering, kept as written: the number named Was before and
// names another patch, or none, now.
type KeptDependency struct {
	// Patch is the new commit's patch file.
	Patch string
	// Number is the trailer's number.
	Number int
	// Was is the old series' patch of that number.
	Was string
	// Now is Was's number now, 0 if it left the series.
	Now int
}

// renumber rewrites the Depends-On trailers of the work tree's commits
// when the numbering of the series changed: a commit the series in old
// held keeps depending on the same patches under their new numbers. A
// commit is matched to its old patch by its file name without the number,
// else (its subject was reworded) by its diff's patch-id, else (subject
// and diff both changed) by its position: when a run of commits new to
// the series lies between two matched neighbours where as many old
// patches left (paired in order). Commits still unmatched are new: they keep their trailers
// as written (reported in Kept when a number they name moved). A
// dependency whose subject changed keeps its number when it stays in
// place; one that left the series is refused.
func (t *Tree) renumber(ctx context.Context, base string, old []series.Patch) (*Renumbering, error) {
	res := &Renumbering{}
	files, err := series.Export(ctx, t.Repo, base, "HEAD")
	if err != nil {
		return nil, err
	}
	oldByNum := map[int]string{}
	oldBySlug := map[string]series.Patch{}
	oldByID := map[string]series.Patch{}
	for _, p := range old {
		oldByNum[p.Number] = p.Name
		oldBySlug[series.Slug(p.Name)] = p
		id, err := t.patchID(ctx, p.Data)
		if err != nil {
			return nil, err
		}
		if id != "" {
			oldByID[id] = p
		}
	}
	// Each commit's patch of the old series: by its file name, else (its
	// subject was reworded) by its diff's patch-id. An old patch is taken
	// once, by name first: a new commit whose diff repeats a patch kept
	// under its name (a change made again later) is not that patch.
	matched := make([]*series.Patch, len(files))
	taken := map[string]bool{}
	for i, f := range files {
		if op, ok := oldBySlug[series.Slug(f.Name)]; ok && !taken[op.Name] {
			matched[i] = &op
			taken[op.Name] = true
		}
	}
	for i, f := range files {
		if matched[i] != nil {
			continue
		}
		id, err := t.patchID(ctx, f.Data)
		if err != nil {
			return nil, err
		}
		if op, ok := oldByID[id]; ok && !taken[op.Name] {
			matched[i] = &op
			taken[op.Name] = true
		}
	}
	for _, m := range matchByPosition(files, old, matched) {
		op := old[m.old]
		matched[m.file] = &op
		res.ByPosition = append(res.ByPosition, PositionMatch{Patch: files[m.file].Name, Was: op.Name})
	}
	newBySlug := map[string]int{}
	for i, f := range files {
		newBySlug[series.Slug(f.Name)] = i + 1
	}
	renumbered := false
	for i, op := range matched {
		if op != nil {
			newBySlug[series.Slug(op.Name)] = i + 1
			renumbered = renumbered || op.Number != i+1
		}
	}
	msgs := map[int]func(string) string{}
	for i, f := range files {
		if matched[i] == nil {
			if renumbered {
				res.Kept = append(res.Kept, keptDependencies(f, oldByNum, newBySlug, matched)...)
			}
			continue
		}
		if matched[i].Meta == nil {
			continue
		}
		op := *matched[i]
		oldName := op.Name
		md, err := metadata.Parse(f.Data)
		if err != nil {
			continue // check reports it
		}
		if fmt.Sprint(md.DependsOn()) != fmt.Sprint(op.Meta.DependsOn()) {
			// Rewritten already (by an interrupted extract), or edited
			// by hand: the commit's trailers stand.
			continue
		}
		remap := map[string]string{}
		for _, d := range md.DependsOn() {
			depName, ok := oldByNum[d]
			if !ok {
				continue
			}
			n, ok := newBySlug[series.Slug(depName)]
			if !ok {
				// Reworded in place: the patch now at the same number has
				// a name no patch of the old series had, so it is the
				// dependency under a new subject.
				if d <= len(files) {
					if _, other := oldBySlug[series.Slug(files[d-1].Name)]; !other {
						continue
					}
				}
				return nil, &DependencyGoneError{Patch: oldName, Dep: depName, Number: d}
			}
			if n != d {
				remap[fmt.Sprintf("%04d", d)] = fmt.Sprintf("%04d", n)
			}
		}
		if len(remap) > 0 {
			msgs[i] = func(msg string) string {
				return dependsLineRE.ReplaceAllStringFunc(msg, func(l string) string {
					num := l[len("Depends-On: "):]
					if to, ok := remap[num]; ok {
						return "Depends-On: " + to
					}
					return l
				})
			}
		}
	}
	if len(msgs) == 0 {
		return res, nil
	}
	return res, t.rewriteMessages(ctx, base, msgs)
}

// keptDependencies returns the Depends-On trailers of f, a commit new to
// the series, whose number named an old patch that now has another
// number or left the series.
func keptDependencies(f series.File, oldByNum map[int]string, newBySlug map[string]int, matched []*series.Patch) []KeptDependency {
	md, err := metadata.Parse(f.Data)
	if err != nil {
		return nil
	}
	var kept []KeptDependency
	for _, d := range md.DependsOn() {
		was, ok := oldByNum[d]
		if !ok {
			continue
		}
		now := 0
		for i, op := range matched {
			if op != nil && op.Name == was {
				now = i + 1
			}
		}
		if now == 0 {
			// Perhaps reworded and matched by nothing; its slug may
			// still be taken by a file of the same name.
			now = newBySlug[series.Slug(was)]
		}
		if now != d {
			kept = append(kept, KeptDependency{Patch: f.Name, Number: d, Was: was, Now: now})
		}
	}
	return kept
}

type positionMatch struct{ file, old int }

// matchByPosition pairs the commits that neither name nor patch-id
// matched with the old patches that left the series, by position: a run
// of unmatched files between two matched neighbours (or an end of the
// series) takes the old patches that lay between those neighbours' old
// numbers and were not matched, in order, when there are as many.
// Anything else stays unmatched.
func matchByPosition(files []series.File, old []series.Patch, matched []*series.Patch) []positionMatch {
	used := map[int]bool{}
	for _, op := range matched {
		if op != nil {
			used[op.Number] = true
		}
	}
	maxOld := 0
	for _, p := range old {
		maxOld = max(maxOld, p.Number)
	}
	var out []positionMatch
	for i := 0; i < len(files); {
		if matched[i] != nil {
			i++
			continue
		}
		start := i
		for i < len(files) && matched[i] == nil {
			i++
		}
		lo, hi := 0, maxOld+1
		if start > 0 {
			lo = matched[start-1].Number
		}
		if i < len(files) {
			hi = matched[i].Number
		}
		var gone []int
		for k, p := range old {
			if p.Number > lo && p.Number < hi && !used[p.Number] {
				gone = append(gone, k)
			}
		}
		if len(gone) != i-start {
			continue
		}
		for j, k := range gone {
			out = append(out, positionMatch{file: start + j, old: k})
		}
	}
	return out
}

// patchID returns the stable patch-id of a patch file's diff (the same
// for the same change whatever its message), or "" if git cannot tell.
// Its error is an interruption: no answer, never a "cannot tell".
func (t *Tree) patchID(ctx context.Context, data []byte) (string, error) {
	cmd := t.Repo.Command(ctx, "patch-id", "--stable")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		return "", git.Interruption(ctx, err)
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return id, nil
}

// rewriteMessages replaces the messages of the commits base..HEAD that
// edit names (by index, oldest first) and moves the fork branch to the
// result: trees, authors and dates stay, so the work tree's files do not
// change.
func (t *Tree) rewriteMessages(ctx context.Context, base string, edit map[int]func(string) string) error {
	commits, err := t.Repo.Lines(ctx, "rev-list", "--reverse", base+"..HEAD")
	if err != nil {
		return err
	}
	oldHead, err := t.Head(ctx)
	if err != nil {
		return err
	}
	parent, changed := base, false
	for i, c := range commits {
		fn := edit[i]
		if fn == nil && !changed {
			parent = c
			continue
		}
		raw, err := t.Repo.Run(ctx, "cat-file", "commit", c)
		if err != nil {
			return err
		}
		_, msg, _ := strings.Cut(raw, "\n\n")
		if fn != nil {
			msg = fn(msg)
		}
		info, err := t.Repo.Line(ctx, "log", "-1", "--date=raw", "--format=%T%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd", c)
		if err != nil {
			return err
		}
		f := strings.Split(info, "\x00")
		if len(f) != 7 {
			return fmt.Errorf("reading commit %s: %q", c, info)
		}
		// git's stderr in the error says why it failed (a full disk:
		// the caller then says where to free space).
		out, err := t.Repo.RunInput(ctx, msg, []string{"GIT_AUTHOR_NAME=" + f[1], "GIT_AUTHOR_EMAIL=" + f[2], "GIT_AUTHOR_DATE=" + f[3],
			"GIT_COMMITTER_NAME=" + f[4], "GIT_COMMITTER_EMAIL=" + f[5], "GIT_COMMITTER_DATE=" + f[6]},
			"commit-tree", f[0], "-p", parent, "-F", "-")
		if err != nil {
			return fmt.Errorf("rewriting the message of %s: %w", c, err)
		}
		parent, changed = strings.TrimSpace(out), true
	}
	if _, err := t.Repo.Run(ctx, "update-ref", "-m", "nomadfork extract: renumber Depends-On", "refs/heads/"+ForkBranch, parent, oldHead); err != nil {
		return err
	}
	return nil
}

// ExtractReport writes what Extract did to log: each patch file it wrote,
// renamed or removed, named under dir (the line's patches directory as
// the user names it, such as patches/v1.5.3), and the commits it matched
// to their old patch only by position. The Depends-On trailers it kept as
// written although the series was renumbered are warnings, to warn. Both
// are rendered by log when it is a hint.Renderer.
func ExtractReport(log, warn io.Writer, dir string, changes []series.Change, r *Renumbering) {
	for _, c := range changes {
		name := filepath.Join(dir, c.Name)
		if c.Action == "renamed" {
			name = filepath.Join(dir, c.From) + " -> " + c.Name
		}
		fmt.Fprintf(log, "%-9s %s\n", c.Action, name)
	}
	if len(changes) == 0 {
		hint.Fprint(log, hint.Sprintf("the series is empty: %s has no commits after the upstream base", hint.WorkTree))
	}
	if r == nil {
		return
	}
	for _, m := range r.ByPosition {
		fmt.Fprintf(log, "note: %s is taken for %s by its place in the series (its subject and diff both changed), so its Depends-On follow the renumbering\n",
			filepath.Join(dir, m.Patch), m.Was)
	}
	for _, k := range r.Kept {
		now := fmt.Sprintf("is now %04d", k.Now)
		if k.Now == 0 {
			now = "has left the series"
		}
		fmt.Fprintln(warn, hint.Text(log, hint.Sprintf("nomadfork extract: warning: %s is new to the series and keeps `Depends-On: %04d` as written, but the series was renumbered: the old %04d (%s) %s; "+
			"if the commit means that patch, reword its Depends-On in %s (`git rebase -i upstream`, \"reword\") to the new number, then run %s",
			filepath.Join(dir, k.Patch), k.Number, k.Number, k.Was, now, hint.WorkTree, hint.Run("extract"))))
	}
}
