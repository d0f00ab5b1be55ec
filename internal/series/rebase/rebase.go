package rebase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Files are the repository files a completed rebase rewrites. Until it
// completes, none of them is touched.
type Files struct {
	// From is the pin of the series being rebased; empty: Pin. A rebase
	// that makes a new line reads the old line's pin and writes the new
	// line's.
	From string
	// FromDir is the directory of the line a rebase in place moves: the
	// completed rebase removes it and carries its other files (baselines
	// of other versions than the old one) to Patches. Empty for a rebase
	// that makes a new line.
	FromDir string
	// Pin and Patches are the target line's pin and directory, which
	// must not exist until the rebase completes.
	Pin       string
	Patches   string
	Changelog string
	// Txn is the directory the completing transaction stages in
	// (patches/).
	Txn string
	// DefaultFile, if set, is the default-line record, rewritten to the
	// target version (the default line moves).
	DefaultFile string
	// WorkTreeFrom and WorkTreeTo, if set, move the line's work tree
	// directory (a line other than the default one moves).
	WorkTreeFrom, WorkTreeTo string
}

// LineExistsError is returned when the rebase's target version is a line
// already.
type LineExistsError struct {
	Line, Dir string
}

func (e *LineExistsError) Error() string {
	return fmt.Sprintf("line %s exists already (%s)", e.Line, e.Dir)
}

// state is a rebase in progress, kept in the work tree's state record.
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
	// Head is HEAD when the rebase stopped at a conflict: a resolution
	// committed by an interrupted -continue is the commit on top of it.
	Head string `json:"head,omitempty"`
	// Tip is HEAD when the last outcome was recorded: a patch applied
	// by a run interrupted before it recorded the outcome is the commit
	// on top of it.
	Tip string `json:"tip,omitempty"`
}

// ErrNoRebase is returned by Continue and Abort without a rebase in progress.
var ErrNoRebase = errors.New("no rebase in progress")

// Rebaser moves the series of a work tree.
type Rebaser struct {
	Tree  *worktree.Tree
	Files Files
	Log   io.Writer
}

func (r *Rebaser) load(ctx context.Context) (*state, *worktree.RebaseRecord, error) {
	ts, err := r.Tree.LoadState(ctx)
	if err != nil {
		return nil, nil, err
	}
	if ts.Rebase == nil {
		return nil, nil, ErrNoRebase
	}
	var s state
	if err := json.Unmarshal(ts.Rebase.Detail, &s); err != nil {
		return nil, nil, fmt.Errorf("parsing the rebase in progress: %w", err)
	}
	return &s, ts.Rebase, nil
}

// save records s in the work tree's state; stopped names the patch the
// rebase stopped at with a conflict, or is empty.
func (r *Rebaser) save(ctx context.Context, s *state, stopped string) error {
	detail, err := json.Marshal(s)
	if err != nil {
		return err
	}
	ts := s.OldState
	ts.Rebase = &worktree.RebaseRecord{Onto: s.Target.Version(), Stopped: stopped, Detail: detail}
	return r.Tree.SaveState(ctx, &ts)
}

// continueAm commits the hand resolution of the patch named stopped. A
// resolution that leaves the patch empty, with nothing left unstaged (the
// user kept the target's side), drops the patch as carried by the target,
// as the rebase does when a three-way merge comes out empty; `git am
// --continue` alone would refuse it on every -continue.
func (r *Rebaser) continueAm(ctx context.Context, stopped string) (Outcome, error) {
	repo := r.Tree.Repo
	err := repo.AmContinue(ctx)
	if err == nil {
		return Outcome{Patch: stopped, Kind: Resolved}, nil
	}
	if ctx.Err() != nil {
		return Outcome{}, ctx.Err()
	}
	var am *git.AmError
	if errors.As(err, &am) && strings.Contains(am.Output, "No changes") {
		dirty, serr := repo.Status(ctx)
		if serr != nil {
			return Outcome{}, serr
		}
		if len(dirty) == 0 {
			if err := repo.AmSkip(ctx); err != nil {
				return Outcome{}, err
			}
			out := Outcome{Patch: stopped, Kind: Upstream, Detail: "the hand resolution leaves it empty: the target already holds its change"}
			fmt.Fprintf(r.Log, "%-16s %s %s\n", out.Kind, out.Patch, out.Detail)
			return out, nil
		}
	}
	return Outcome{}, hint.Errorf("continuing %s: %w; `git add` the resolved files, then run %s", stopped, err, hint.Run("rebase", "-continue"))
}

// record adds the outcome of the next patch to s and saves it, with the
// commit HEAD is at as the tip the outcomes end at.
func (r *Rebaser) record(ctx context.Context, s *state, out Outcome) error {
	tip, err := r.Tree.Head(ctx)
	if err != nil {
		return err
	}
	s.Outcomes = append(s.Outcomes, out)
	s.Next++
	s.Tip = tip
	return r.save(ctx, s, "")
}

// undoUnrecorded resets the work tree to the tip the recorded outcomes end
// at when a run was interrupted after it applied a patch and before it
// recorded the outcome (the state's record failed: git killed, the disk
// full). The patch is tried again, so its outcome is the one an
// uninterrupted run records; read from the work tree, a patch already
// applied looks carried by the target.
func (r *Rebaser) undoUnrecorded(ctx context.Context, s *state) error {
	if s.Next == 0 || s.Next >= len(s.Patches) || s.Tip == "" {
		// Not started (Continue switches to the target), every outcome
		// recorded (finishing moves no commit), or recorded by a
		// nomadfork that kept no tip.
		return nil
	}
	t := r.Tree
	head, err := t.Head(ctx)
	if err != nil || head == s.Tip {
		return err
	}
	parent, err := t.Repo.ResolveCommit(ctx, "HEAD^")
	if err != nil {
		return err
	}
	if parent != s.Tip {
		return hint.Errorf("HEAD moved since the rebase recorded %s (it is at %s, neither that commit nor one commit on it), so nomadfork cannot tell what the work tree holds; "+
			"run `git reset --hard %s` in the work tree and then %s, or run %s", s.Patches[s.Next-1], head, s.Tip, hint.Run("rebase", "-continue"), hint.Run("rebase", "-abort"))
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return err
	}
	if len(dirty) > 0 {
		return hint.Errorf("%s has uncommitted changes on top of %s, which the interrupted rebase applied without recording it; commit or stash them elsewhere, then run %s (it applies %s again)",
			t.Dir, s.Patches[s.Next], hint.Run("rebase", "-continue"), s.Patches[s.Next])
	}
	return t.Repo.ResetHard(ctx, s.Tip)
}

// From returns the version the rebase in progress started from.
func (r *Rebaser) From(ctx context.Context) (string, error) {
	s, _, err := r.load(ctx)
	if err != nil {
		return "", err
	}
	return s.From, nil
}

// Target returns the pin of the rebase in progress's target.
func (r *Rebaser) Target(ctx context.Context) (*pin.Pin, error) {
	s, _, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	return &s.Target, nil
}

// InProgress reports whether a rebase is in progress in the work tree.
func (r *Rebaser) InProgress(ctx context.Context) bool {
	_, _, err := r.load(ctx)
	return err == nil
}

// Start begins moving the series from cur onto next, whose modules mods
// were fetched and verified. It refuses if the work tree holds work that
// is not in patches/.
func (r *Rebaser) Start(ctx context.Context, cur, next *pin.Pin, mods []*upstream.Module, patches []series.Patch) (*Report, error) {
	t := r.Tree
	if err := t.Require(ctx, worktree.Need{Verb: "rebase", Base: true, NoOp: true, Clean: true}); err != nil {
		return nil, err
	}
	lost, err := t.Unexported(ctx, patches)
	if err != nil {
		return nil, err
	}
	if len(lost) > 0 {
		return nil, &worktree.RefusalError{What: hint.Sprintf("the work tree has commits that are not in patches/:"), Items: lost,
			Hint: hint.Sprintf("run %s first, so the rebase starts from the series as committed", hint.Run("extract"))}
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
		return nil, hint.Errorf("the work tree has no applied series: run %s first", hint.Run("apply"))
	}
	newBase, err := t.ImportBase(ctx, mods)
	if err != nil {
		return nil, err
	}
	s := &state{From: cur.Version(), Target: *next, OldHead: oldHead, OldBase: oldBase, NewBase: newBase, OldState: *oldState}
	for _, p := range patches {
		s.Patches = append(s.Patches, p.Name)
	}
	if err := r.save(ctx, s, ""); err != nil {
		return nil, err
	}
	if err := t.Repo.Switch(ctx, worktree.ForkBranch, newBase); err != nil {
		return nil, err
	}
	if _, err := t.Repo.Run(ctx, "update-ref", worktree.BaseRef, newBase); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Log, "rebasing %d patch(es) from %s onto %s\n", len(patches), cur.Version(), next.Version())
	return r.run(ctx, s, patches)
}

// Onto starts a rebase onto upstream version: the target is resolved
// (nested module versions from nested, then targetsFile, then the tag
// commit's pseudo-version), downloaded and verified first.
func (r *Rebaser) Onto(ctx context.Context, version, targetsFile string, nested map[string]string, patches []series.Patch) (*Report, error) {
	if len(patches) == 0 {
		return nil, fmt.Errorf("%w: there is nothing to rebase in %s", series.ErrNoPatches, r.Files.Patches)
	}
	from := r.Files.From
	if from == "" {
		from = r.Files.Pin
	}
	cur, err := pin.Load(from)
	if err != nil {
		return nil, err
	}
	if semver.Compare(version, cur.Version()) <= 0 {
		return nil, fmt.Errorf("-onto %s is not newer than the pinned %s", version, cur.Version())
	}
	if err := r.Tree.Require(ctx, worktree.Need{Verb: "rebase", Base: true, NoOp: true, Clean: true}); err != nil {
		return nil, err
	}
	targets, err := upstream.LoadTargets(targetsFile)
	if err != nil {
		return nil, err
	}
	next, mods, _, err := upstream.Resolve(ctx, cur, version, targets, nested, false, r.Log)
	if err != nil {
		return nil, err
	}
	return r.Start(ctx, cur, next, mods, patches)
}

// Continue goes on after the user resolved a conflict and staged the
// result, or after an interruption.
func (r *Rebaser) Continue(ctx context.Context, patches []series.Patch) (*Report, error) {
	s, rec, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	t := r.Tree
	inAm, err := t.AmInProgress(ctx)
	if err != nil {
		return nil, err
	}
	if rec.Stopped != "" {
		head, err := t.Head(ctx)
		if err != nil {
			return nil, err
		}
		resolved := Outcome{Patch: rec.Stopped, Kind: Resolved}
		committed := false
		if s.Head != "" && head != s.Head {
			parent, _ := t.Repo.ResolveCommit(ctx, "HEAD^")
			committed = parent == s.Head
		}
		switch {
		case committed:
			// An interrupted -continue committed the resolution; end the
			// `git am` session it may have left.
			if inAm {
				if _, err := t.Repo.Run(ctx, "am", "--quit"); err != nil {
					return nil, err
				}
			}
		case !inAm:
			return nil, hint.Errorf("the stopped `git am` of %s is gone (did `git am --abort` or `--skip` run?), so nomadfork cannot tell whether to keep the patch; "+
				"run %s to restore everything as it was, then start over", rec.Stopped, hint.Run("rebase", "-abort"))
		default:
			unmerged, err := t.Repo.Lines(ctx, "diff", "--name-only", "--diff-filter=U")
			if err != nil {
				return nil, err
			}
			if len(unmerged) > 0 {
				return nil, hint.Errorf("%s still has conflicts in %s: resolve them, `git add` the files, then run %s", rec.Stopped, strings.Join(unmerged, ", "), hint.Run("rebase", "-continue"))
			}
			out, err := r.continueAm(ctx, rec.Stopped)
			if err != nil {
				return nil, err
			}
			resolved = out
		}
		s.Head = ""
		if err := r.record(ctx, s, resolved); err != nil {
			return nil, err
		}
	} else {
		if inAm {
			if err := t.Repo.AmAbort(ctx); err != nil {
				return nil, err
			}
		}
		if err := r.undoUnrecorded(ctx, s); err != nil {
			return nil, err
		}
	}
	if s.Next == 0 {
		// Interrupted before the first patch, perhaps before the work tree
		// moved to the target.
		if err := t.Repo.Switch(ctx, worktree.ForkBranch, s.NewBase); err != nil {
			return nil, err
		}
		if _, err := t.Repo.Run(ctx, "update-ref", worktree.BaseRef, s.NewBase); err != nil {
			return nil, err
		}
	}
	if err := r.save(ctx, s, ""); err != nil {
		return nil, err
	}
	return r.run(ctx, s, patches)
}

// Abort restores the work tree to where it was before the rebase started.
// The pin, patches/ and CHANGELOG.md were never touched.
func (r *Rebaser) Abort(ctx context.Context) error {
	s, _, err := r.load(ctx)
	if err != nil {
		return err
	}
	t := r.Tree
	t.Repo.RemoveStaleIndexLock(ctx)
	if err := t.Repo.AmAbort(ctx); err != nil {
		return err
	}
	if err := t.Repo.Switch(ctx, worktree.ForkBranch, s.OldHead); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"update-ref", worktree.BaseRef, s.OldBase},
		{"clean", "--quiet", "-d", "--force", "--force"},
	} {
		if _, err := t.Repo.Run(ctx, args...); err != nil {
			return err
		}
	}
	return t.SaveState(ctx, &s.OldState)
}

// Report is the result of a rebase, complete or stopped at a conflict.
type Report struct {
	From, To string
	Outcomes []Outcome
	// Stopped is the conflict the rebase stopped at, if any.
	Stopped *Outcome
	// Aborted, for an aborted rebase, says what is as before.
	Aborted string
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
			return nil, hint.Errorf("%s left patches/ during the rebase; restore it or run %s", name, hint.Run("rebase", "-abort"))
		}
		end := progress.Begin("rebasing " + name)
		out, err := Try(ctx, r.Tree.Repo, p, s.Target.Version())
		end()
		if err != nil {
			return nil, err
		}
		if out.Kind == Conflict {
			rep.Outcomes = s.Outcomes
			rep.Stopped = &out
			head, err := r.Tree.Head(ctx)
			if err != nil {
				return nil, err
			}
			s.Head = head
			return rep, r.save(ctx, s, name)
		}
		fmt.Fprintf(r.Log, "%-16s %s %s\n", out.Kind, name, out.Detail)
		if err := r.record(ctx, s, out); err != nil {
			return nil, err
		}
	}
	rep.Outcomes = s.Outcomes
	return rep, r.finish(ctx, s, rep)
}

// AbortStopped aborts a stopped rebase, if there is one, and says so.
func (r *Rebaser) AbortStopped(ctx context.Context) error {
	if !r.InProgress(ctx) {
		return nil
	}
	if err := r.Abort(ctx); err != nil {
		return fmt.Errorf("aborting the stopped rebase: %w", err)
	}
	fmt.Fprintln(r.Log, "aborted the stopped rebase: work tree restored; pin, patches/ and CHANGELOG.md were never changed")
	return nil
}

// Prover gathers the evidence that upstream at base carries patch p, or
// fails saying why it is not proven.
type Prover func(ctx context.Context, base string, p series.Patch) (string, error)

// DropProven drops the patch the rebase stopped at as carried by upstream,
// once prove shows it on the rebase's target, and goes on with the rebase.
// pr is the upstream pull request that carries it; the changelog entry
// names it with the target version and the evidence. If prove fails,
// nothing changes: the rebase stays stopped at the patch.
func (r *Rebaser) DropProven(ctx context.Context, name, pr string, prove Prover, patches []series.Patch) (*Report, error) {
	s, rec, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	if rec.Stopped == "" {
		return nil, fmt.Errorf("the rebase onto %s is not stopped at a patch; `drop -verify` drops the patch a rebase stopped at", s.Target.Version())
	}
	p, err := series.Find(patches, name)
	if err != nil {
		return nil, err
	}
	if p.Name != rec.Stopped {
		return nil, fmt.Errorf("the rebase onto %s is stopped at %s, not %s", s.Target.Version(), rec.Stopped, p.Name)
	}
	evidence, err := prove(ctx, s.NewBase, *p)
	if err != nil {
		return nil, hint.Errorf("%w\nthe rebase is still stopped at %s: resolve it and run %s, or %s", err, p.Name, hint.Run("rebase", "-continue"), hint.Run("rebase", "-abort"))
	}
	t := r.Tree
	t.Repo.RemoveStaleIndexLock(ctx)
	if err := t.Repo.AmAbort(ctx); err != nil {
		return nil, err
	}
	out := Outcome{Patch: p.Name, Kind: Upstream, Detail: fmt.Sprintf("in upstream %s, %s; %s", s.Target.Version(), pr, evidence)}
	fmt.Fprintf(r.Log, "%-16s %s %s\n", out.Kind, p.Name, out.Detail)
	if err := r.record(ctx, s, out); err != nil {
		return nil, err
	}
	return r.run(ctx, s, patches)
}
