package rebase

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// FinishError is returned when the completing transaction cannot run:
// nothing was written, and the rebase stays where it was.
type FinishError struct{ Err error }

func (e *FinishError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *FinishError) Render(r hint.Renderer) string {
	return hint.Sprintf("cannot complete the rebase: %v; nothing was changed (pin, patches and CHANGELOG.md are as before): "+
		"fix that, then run %s, or run %s", e.Err, hint.Run("rebase", "-continue"), hint.Run("rebase", "-abort")).Render(r)
}

func (e *FinishError) Unwrap() error { return e.Err }

// finish writes the new series, pin, changelog entry and state record,
// and moves the line, in one transaction: all of it or none.
func (r *Rebaser) finish(ctx context.Context, s *state, rep *Report) error {
	t := r.Tree
	f := r.Files
	if _, err := os.Stat(f.Patches); err == nil {
		return &FinishError{&LineExistsError{Line: s.Target.Version(), Dir: f.Patches}}
	}
	files, err := series.Export(ctx, t.Repo, s.NewBase, "HEAD")
	if err != nil {
		return err
	}
	pinData, err := s.Target.Marshal()
	if err != nil {
		return err
	}
	changelog, err := r.changelog(rep)
	if err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	stateData, err := worktree.MarshalState(&worktree.State{Base: s.NewBase, Applied: head, Hashes: series.Hashes(files)})
	if err != nil {
		return err
	}
	statePath, err := t.StatePath(ctx)
	if err != nil {
		return err
	}
	txnDir := f.Txn
	if txnDir == "" {
		txnDir = filepath.Dir(f.Patches)
	}
	tx, err := txn.Begin(txnDir, "rebase onto "+s.Target.Version())
	if err != nil {
		return err
	}
	err = func() error {
		dir, err := tx.StageDir()
		if err != nil {
			return err
		}
		if f.FromDir != "" {
			// The line's other files move with it; the old version's
			// baselines describe an upstream it no longer uses.
			stale := "-" + s.From + ".tsv"
			err := txn.CopyDir(f.FromDir, dir, func(rel string) bool {
				return rel == filepath.Base(f.Pin) || (filepath.Dir(rel) == "." && filepath.Ext(rel) == ".patch") || strings.HasSuffix(rel, stale)
			})
			if err != nil {
				return fmt.Errorf("staging the line: %w", err)
			}
		}
		for _, file := range files {
			if err := os.WriteFile(filepath.Join(dir, file.Name), file.Data, 0o644); err != nil {
				return fmt.Errorf("staging the line: %w", err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f.Pin)), pinData, 0o644); err != nil {
			return fmt.Errorf("staging the line: %w", err)
		}
		if f.FromDir != "" {
			tx.Remove(f.FromDir)
		}
		tx.Put(dir, f.Patches)
		if err := tx.WriteFile(f.Changelog, changelog, 0o644); err != nil {
			return err
		}
		if f.DefaultFile != "" {
			if err := tx.WriteFile(f.DefaultFile, []byte(s.Target.Version()+"\n"), 0o644); err != nil {
				return err
			}
		}
		if err := tx.WriteFile(statePath, stateData, 0o644); err != nil {
			return err
		}
		if f.WorkTreeFrom != "" {
			tx.Rename(f.WorkTreeFrom, f.WorkTreeTo)
		}
		return tx.Check()
	}()
	if err != nil {
		tx.Abort()
		return &FinishError{err}
	}
	return tx.Commit()
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

// fates names what a rebase outcome kind means in the changelog.
var fates = map[string]string{
	Clean:    "applied cleanly",
	ThreeWay: "merged (3-way)",
	Upstream: "dropped as upstream",
	Resolved: "resolved by hand",
}

// Fates lists every patch's fate, a changelog bullet each.
func (rep *Report) Fates() string {
	var b strings.Builder
	for _, o := range rep.Outcomes {
		fmt.Fprintf(&b, "  - %s: %s", o.Patch, fates[o.Kind])
		if o.Kind == Upstream && o.Detail != "" {
			fmt.Fprintf(&b, " (%s)", o.Detail)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// changelog returns CHANGELOG.md with a release heading for the new
// upstream and the rebase summary above the newest existing heading.
func (r *Rebaser) changelog(rep *Report) ([]byte, error) {
	data, err := os.ReadFile(r.Files.Changelog)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	text := string(data)
	entry := fmt.Sprintf("## v%s+fork.1 (unreleased)\n\n- %s\n%s\n", strings.TrimPrefix(rep.To, "v"), rep.Summary(), rep.Fates())
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
	return []byte(text), nil
}
