package rebase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Files are the repository files a completed rebase rewrites. Until it
// completes, none of them is touched.
type Files struct {
	Pin       string
	Patches   string
	Changelog string
}

// state is a rebase in progress, kept in the work tree's git directory.
type state struct {
	From     string         `json:"from"`
	Target   pin.Pin        `json:"target"`
	OldHead  string         `json:"old_head"`
	OldBase  string         `json:"old_base"`
	NewBase  string         `json:"new_base"`
	OldState worktree.State `json:"old_state"`
	Patches  []string       `json:"patches"`
	Next     int            `json:"next"`
	Outcomes []Outcome      `json:"outcomes"`
}

const stateFile = "nomadfork-rebase.json"

// ErrNoRebase is returned by Continue and Abort without a rebase in progress.
var ErrNoRebase = errors.New("no rebase in progress")

// Rebaser moves the series of a work tree.
type Rebaser struct {
	Tree  *worktree.Tree
	Files Files
	Log   io.Writer
}

func (r *Rebaser) statePath(ctx context.Context) (string, error) {
	dir, err := r.Tree.Repo.GitDir(ctx)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, stateFile), nil
}

func (r *Rebaser) load(ctx context.Context) (*state, error) {
	path, err := r.statePath(ctx)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoRebase
	}
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return &s, nil
}

func (r *Rebaser) save(ctx context.Context, s *state) error {
	path, err := r.statePath(ctx)
	if err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, s)
}

// InProgress reports whether a rebase is stopped in the work tree.
func (r *Rebaser) InProgress(ctx context.Context) bool {
	if !r.Tree.Exists() {
		return false
	}
	_, err := r.load(ctx)
	return err == nil
}

// Start begins moving the series from cur onto next, whose modules mods
// were fetched and verified. It refuses if the work tree holds work that
// is not in patches/.
func (r *Rebaser) Start(ctx context.Context, cur, next *pin.Pin, mods []*upstream.Module, patches []series.Patch) (*Report, error) {
	t := r.Tree
	if r.InProgress(ctx) {
		return nil, errors.New("a rebase is already in progress: finish it with `nomadfork rebase -continue` or undo it with `nomadfork rebase -abort`")
	}
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return nil, fmt.Errorf("no work tree at %s: run `nomadfork apply` first", t.Dir)
	}
	if inAm, err := t.AmInProgress(ctx); err != nil || inAm {
		if err == nil {
			err = errors.New("an apply is stopped at a conflict; finish it (`nomadfork apply -continue`) or discard it (`nomadfork apply -force`) first")
		}
		return nil, err
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		return nil, &worktree.RefusalError{What: "the work tree has uncommitted changes:", Items: dirty,
			Hint: "commit and extract them, or stash them, before rebasing"}
	}
	lost, err := t.Unexported(ctx, patches)
	if err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		return nil, &worktree.RefusalError{What: "the work tree has commits that are not in patches/:", Items: lost,
			Hint: "run `nomadfork extract` first, so the rebase starts from the series as committed"}
	}
	oldState, err := t.LoadState(ctx)
	if err != nil {
		return nil, err
	}
	oldHead, err := t.Head(ctx)
	if err != nil {
		return nil, err
	}
	oldBase, err := t.Base(ctx)
	if err != nil {
		return nil, err
	}
	if oldBase == "" || oldHead == "" {
		return nil, errors.New("the work tree has no applied series: run `nomadfork apply` first")
	}
	newBase, err := t.ImportBase(ctx, mods)
	if err != nil {
		return nil, err
	}
	s := &state{From: cur.Version(), Target: *next, OldHead: oldHead, OldBase: oldBase, NewBase: newBase, OldState: *oldState}
	for _, p := range patches {
		s.Patches = append(s.Patches, p.Name)
	}
	if err := r.save(ctx, s); err != nil {
		return nil, err
	}
	if _, err := t.Repo.Run(ctx, "checkout", "--quiet", "--force", "-B", worktree.ForkBranch, newBase); err != nil {
		return nil, err
	}
	if _, err := t.Repo.Run(ctx, "update-ref", worktree.BaseRef, newBase); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Log, "rebasing %d patch(es) from %s onto %s\n", len(patches), cur.Version(), next.Version())
	return r.run(ctx, s, patches)
}

// Continue goes on after the user resolved a conflict and staged the result.
func (r *Rebaser) Continue(ctx context.Context, patches []series.Patch) (*Report, error) {
	s, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	t := r.Tree
	name := s.Patches[s.Next]
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return nil, err
	}
	if inAm {
		unmerged, err := t.Repo.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
		if err != nil {
			return nil, err
		}
		if len(unmerged) > 0 {
			return nil, fmt.Errorf("%s still has conflicts in %s: resolve them, `git add` the files, then run `nomadfork rebase -continue`", name, strings.Join(unmerged, ", "))
		}
		if _, err := t.Repo.Run(ctx, "am", "--continue"); err != nil {
			return nil, fmt.Errorf("continuing %s: %w", name, err)
		}
		s.Outcomes = append(s.Outcomes, Outcome{Patch: name, Kind: Resolved})
	} else {
		// The user skipped the patch (`git am --skip` or `--abort`).
		s.Outcomes = append(s.Outcomes, Outcome{Patch: name, Kind: Upstream, Detail: "skipped by hand during the rebase"})
	}
	s.Next++
	if err := r.save(ctx, s); err != nil {
		return nil, err
	}
	return r.run(ctx, s, patches)
}

// Abort restores the work tree to where it was before the rebase started.
// The pin, patches/ and CHANGELOG.md were never touched.
func (r *Rebaser) Abort(ctx context.Context) error {
	s, err := r.load(ctx)
	if err != nil {
		return err
	}
	t := r.Tree
	if inAm, err := t.AmInProgress(ctx); err != nil {
		return err
	} else if inAm {
		if _, err := t.Repo.Run(ctx, "am", "--abort"); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"checkout", "--quiet", "--force", "-B", worktree.ForkBranch, s.OldHead},
		{"update-ref", worktree.BaseRef, s.OldBase},
		{"clean", "--quiet", "-d", "--force", "--force"},
	} {
		if _, err := t.Repo.Run(ctx, args...); err != nil {
			return err
		}
	}
	if err := t.SaveState(ctx, &s.OldState); err != nil {
		return err
	}
	path, err := r.statePath(ctx)
	if err != nil {
		return err
	}
	return os.Remove(path)
}

// Report is the result of a rebase, complete or stopped at a conflict.
type Report struct {
	From, To string
	Outcomes []Outcome
	// Stopped is the conflict the rebase stopped at, if any.
	Stopped *Outcome
}

func (r *Rebaser) run(ctx context.Context, s *state, patches []series.Patch) (*Report, error) {
	byName := map[string]series.Patch{}
	for _, p := range patches {
		byName[p.Name] = p
	}
	rep := &Report{From: s.From, To: s.Target.Version()}
	for s.Next < len(s.Patches) {
		name := s.Patches[s.Next]
		p, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("%s left patches/ during the rebase; restore it or run `nomadfork rebase -abort`", name)
		}
		out, err := Try(ctx, r.Tree.Repo, p, s.Target.Version())
		if err != nil {
			return nil, err
		}
		if out.Kind == Conflict {
			rep.Outcomes = s.Outcomes
			rep.Stopped = &out
			return rep, r.save(ctx, s)
		}
		fmt.Fprintf(r.Log, "%-16s %s %s\n", out.Kind, name, out.Detail)
		s.Outcomes = append(s.Outcomes, out)
		s.Next++
		if err := r.save(ctx, s); err != nil {
			return nil, err
		}
	}
	rep.Outcomes = s.Outcomes
	return rep, r.finish(ctx, s, rep)
}

// finish writes the new series, pin and changelog entry.
func (r *Rebaser) finish(ctx context.Context, s *state, rep *Report) error {
	t := r.Tree
	files, err := series.Export(ctx, t.Repo, s.NewBase, "HEAD")
	if err != nil {
		return err
	}
	if _, err := series.Write(r.Files.Patches, files, true); err != nil {
		return err
	}
	if err := s.Target.Save(r.Files.Pin); err != nil {
		return err
	}
	if err := r.addChangelog(rep); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	if err := t.SaveState(ctx, &worktree.State{Base: s.NewBase, Applied: head}); err != nil {
		return err
	}
	path, err := r.statePath(ctx)
	if err != nil {
		return err
	}
	return os.Remove(path)
}

// Summary describes the rebase in one sentence for the changelog.
func (rep *Report) Summary() string {
	count := map[string]int{}
	var dropped []string
	for _, o := range rep.Outcomes {
		count[o.Kind]++
		if o.Kind == Upstream {
			dropped = append(dropped, fmt.Sprintf("%s (%s)", o.Patch, o.Detail))
		}
	}
	msg := fmt.Sprintf("Rebased onto upstream %s (from %s): %d applied cleanly, %d by 3-way merge, %d resolved by hand; dropped %d",
		rep.To, rep.From, count[Clean], count[ThreeWay], count[Resolved], len(dropped))
	if len(dropped) > 0 {
		msg += ", applied upstream: " + strings.Join(dropped, "; ")
	}
	return msg + "."
}

// addChangelog adds a release heading for the new upstream with the
// rebase summary above the newest existing heading.
func (r *Rebaser) addChangelog(rep *Report) error {
	data, err := os.ReadFile(r.Files.Changelog)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	text := string(data)
	entry := fmt.Sprintf("## v%s+fork.1 (unreleased)\n\n- %s\n\n", strings.TrimPrefix(rep.To, "v"), rep.Summary())
	i := strings.Index(text, "\n## ")
	switch {
	case strings.HasPrefix(text, "## "):
		text = entry + text
	case i >= 0:
		text = text[:i+1] + entry + text[i+1:]
	default:
		if text != "" && !strings.HasSuffix(text, "\n\n") {
			text = strings.TrimRight(text, "\n") + "\n\n"
		}
		text += entry
	}
	return atomicfile.WriteFile(r.Files.Changelog, []byte(text), 0o644)
}
