// Package rebase moves the patch series onto a newer upstream version,
// drops patches upstream already carries, and reports ahead of time how the
// series fares against other versions.
package rebase

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// Outcome kinds, one per patch and target.
const (
	// Clean: the patch applies without merging (possibly at an offset).
	Clean = "applies"
	// ThreeWay: the patch applies by three-way merge.
	ThreeWay = "3-way"
	// Upstream: the target already carries the patch; it is dropped.
	Upstream = "upstream"
	// Conflict: the patch does not apply; Files lists the conflicts.
	Conflict = "conflict"
	// Resolved: the patch conflicted and was resolved by hand.
	Resolved = "resolved"
)

// Outcome is what happened to one patch.
type Outcome struct {
	Patch  string   `json:"patch"`
	Kind   string   `json:"kind"`
	Detail string   `json:"detail,omitempty"`
	Files  []string `json:"files,omitempty"`
	Hunks  []string `json:"hunks,omitempty"`
	// Unmerged: the conflict left unmerged files (conflict markers);
	// otherwise the patch did not apply at all and Detail says why.
	Unmerged bool `json:"unmerged,omitempty"`
}

// Cell renders the outcome for a table.
func (o Outcome) Cell() string {
	switch o.Kind {
	case Conflict:
		return "conflict (" + strings.Join(o.Files, ", ") + ")"
	case Upstream:
		return "already upstream"
	}
	return o.Kind
}

// Try applies patch p on top of wt's HEAD as one commit, for an upstream at
// version target. It drops the patch (leaving HEAD alone) when its
// Upstream-Status says target carries it, or when it reverse-applies to
// the tree, which means the tree already holds the change. On conflict it
// leaves the `git am` session stopped for the caller to resolve or abort;
// when interrupted, it undoes the partial application.
func Try(ctx context.Context, wt *git.Repo, p series.Patch, target string) (Outcome, error) {
	out := Outcome{Patch: p.Name}
	md, err := p.Metadata()
	if err != nil {
		return out, err
	}
	if st, err := md.Status(); err == nil && st.State == "applied" && semver.Compare(st.Arg, target) <= 0 {
		out.Kind, out.Detail = Upstream, fmt.Sprintf("Upstream-Status: applied %s", st.Arg)
		return out, nil
	}
	if _, err := wt.Run(ctx, "apply", "--check", "--reverse", p.Path); err == nil {
		out.Kind, out.Detail = Upstream, "the target already holds its change (it reverse-applies)"
		return out, nil
	}
	exact := true
	if _, err := wt.Run(ctx, "apply", "--check", p.Path); err != nil {
		exact = false
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	before, err := wt.Line(ctx, "rev-parse", "HEAD")
	if err != nil {
		return out, err
	}
	err = wt.Am(ctx, p.Path, !exact)
	var am *git.AmError
	switch {
	case err == nil:
		out.Kind = Clean
		if !exact {
			out.Kind = ThreeWay
		}
		return out, nil
	case !errors.As(err, &am):
		// Interrupted: undo the partial application.
		bg := context.WithoutCancel(ctx)
		_, _ = wt.Recover(bg)
		wt.RemoveStaleIndexLock(bg)
		_ = wt.AmAbort(bg)
		_, _ = wt.Run(bg, "reset", "--quiet", "--hard", before)
		return out, err
	case !am.Unmerged && (strings.Contains(am.Output, "No changes") || strings.Contains(am.Output, "already applied")):
		if err := wt.AmSkip(ctx); err != nil {
			return out, err
		}
		out.Kind, out.Detail = Upstream, "the target already holds its change (the merge is empty)"
		return out, nil
	}
	out.Kind, out.Files, out.Hunks, out.Unmerged = Conflict, am.Files, am.Hunks, am.Unmerged
	out.Detail = strings.TrimSpace(am.Output)
	return out, nil
}

// StopError is the error of a rebase stopped at o: what conflicted and
// the commands that resume or abort it.
func (o Outcome) StopError() error {
	return &worktree.ConflictError{Patch: o.Patch, Files: o.Files, Hunks: o.Hunks, Conflict: o.Unmerged, Output: o.Detail,
		Resume: hint.Sprintf("resolve the conflicts in %s (or apply the patch there by hand), `git add` the files, then run %s;\n"+
			"or run %s to restore everything as it was", hint.WorkTree, hint.Run("rebase", "-continue"), hint.Run("rebase", "-abort"))}
}
