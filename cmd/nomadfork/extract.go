package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "extract", "[-force]")
	force := fs.Bool("force", false, "overwrite patch files changed since nomadfork last wrote or applied them")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	changes, renum, err := t.Extract(ctx, e.line.Dir, worktree.ExtractOptions{Force: *force, Txn: filepath.Join(e.root, line.PatchesDir)})
	if err != nil {
		return err
	}
	for _, c := range changes {
		name := filepath.Join(line.PatchesDir, e.line.Name, c.Name)
		if c.Action == "renamed" {
			name = filepath.Join(line.PatchesDir, e.line.Name, c.From) + " -> " + c.Name
		}
		fmt.Fprintf(e.stdout, "%-9s %s\n", c.Action, name)
	}
	if len(changes) == 0 {
		fmt.Fprintf(e.stdout, "the series is empty: %s has no commits after the upstream base\n", e.relWorkTree())
	}
	e.renumberNotes(renum)
	return nil
}

// renumberNotes says which commits extract matched to their old patch
// only by position, and warns about each Depends-On of a new commit that
// kept a number the renumbering gave to another patch.
func (e *env) renumberNotes(r *worktree.Renumbering) {
	if r == nil {
		return
	}
	dir := filepath.Join(line.PatchesDir, e.line.Name)
	for _, m := range r.ByPosition {
		fmt.Fprintf(e.stdout, "note: %s is taken for %s by its place in the series (its subject and diff both changed), so its Depends-On follow the renumbering\n",
			filepath.Join(dir, m.Patch), m.Was)
	}
	for _, k := range r.Kept {
		now := fmt.Sprintf("is now %04d", k.Now)
		if k.Now == 0 {
			now = "has left the series"
		}
		fmt.Fprintf(e.stderr, "nomadfork extract: warning: %s is new to the series and keeps `Depends-On: %04d` as written, but the series was renumbered: the old %04d (%s) %s; "+
			"if the commit means that patch, reword its Depends-On in %s (`git rebase -i upstream`, \"reword\") to the new number, then run %s\n",
			filepath.Join(dir, k.Patch), k.Number, k.Number, k.Was, now, e.relWorkTree(), e.run("extract"))
	}
}

func init() {
	register(command{Name: "extract", Summary: "write nomad/'s commits since the upstream base back to patches/", Run: runExtract, Lock: true})
}
