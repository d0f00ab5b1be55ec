package status

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Column is how the series fares against one upstream version.
type Column struct {
	Version  string
	Notes    []string
	Outcomes []rebase.Outcome
}

// Columns tries the series against each version in scratch work trees and
// returns one column per version. It changes neither the pin, nor
// patches/, nor the work tree's files or branches.
func Columns(ctx context.Context, t *worktree.Tree, cur *pin.Pin, versions []string, targets upstream.Targets, patches []series.Patch, scratch string, log io.Writer) ([]Column, error) {
	if err := t.Init(ctx); err != nil {
		return nil, err
	}
	var cols []Column
	for _, v := range versions {
		_, mods, notes, err := upstream.Resolve(ctx, cur, v, targets, nil, true, log)
		if err != nil {
			return nil, err
		}
		base, err := t.ImportBase(ctx, mods)
		if err != nil {
			return nil, err
		}
		col, err := tryAll(ctx, t.Repo, base, v, patches, filepath.Join(scratch, v))
		if err != nil {
			return nil, err
		}
		col.Notes = notes
		cols = append(cols, col)
	}
	return cols, nil
}

func tryAll(ctx context.Context, repo *git.Repo, base, version string, patches []series.Patch, dir string) (Column, error) {
	col := Column{Version: version}
	wt, cleanup, err := repo.Scratch(ctx, dir, base)
	if err != nil {
		return col, err
	}
	defer cleanup()
	var after string
	for _, p := range patches {
		out, err := rebase.Try(ctx, wt, p, version)
		if err != nil {
			return col, err
		}
		if out.Kind == rebase.Conflict {
			if err := wt.AmAbort(ctx); err != nil {
				return col, err
			}
		}
		if after != "" {
			out.Detail = strings.TrimSpace(out.Detail + " (tried without " + after + ")")
		}
		if out.Kind == rebase.Conflict && after == "" {
			after = p.Name
		}
		col.Outcomes = append(col.Outcomes, out)
	}
	return col, nil
}

// Table renders columns as a Markdown table, a row per patch.
func Table(cols []Column, patches []series.Patch) string {
	var b strings.Builder
	b.WriteString("| patch |")
	for _, c := range cols {
		b.WriteString(" " + c.Version + " |")
	}
	b.WriteString("\n|---|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for i, p := range patches {
		fmt.Fprintf(&b, "| %s |", p.Name)
		for _, c := range cols {
			cell := c.Outcomes[i].Cell()
			if strings.Contains(c.Outcomes[i].Detail, "tried without") {
				cell += " *"
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
	}
	for _, c := range cols {
		for _, n := range c.Notes {
			fmt.Fprintf(&b, "\n%s: %s", c.Version, n)
		}
	}
	return b.String()
}

// Print writes the status report: the table, then a line per conflict or
// patch already upstream.
func Print(w io.Writer, cols []Column, patches []series.Patch, pinned string) {
	fmt.Fprintf(w, "\nseries (%d patches on %s) against newer upstream versions:\n\n%s\n", len(patches), pinned, Table(cols, patches))
	for _, c := range cols {
		for _, o := range c.Outcomes {
			if o.Kind != rebase.Conflict && o.Kind != rebase.Upstream {
				continue
			}
			fmt.Fprintf(w, "%s %s: %s", c.Version, o.Patch, o.Cell())
			if len(o.Hunks) > 0 {
				fmt.Fprintf(w, "; hunks %s", strings.Join(o.Hunks, ", "))
			}
			if o.Kind == rebase.Upstream {
				fmt.Fprintf(w, "; %s", o.Detail)
			}
			fmt.Fprintln(w)
		}
	}
}

// All tries every line of layout against the versions targets
// names newer than the line's pin (see Columns), in scratch/<line> and the
// its work tree, writing to treeLog. trying is called before a line is tried (with
// no versions: nothing newer to try, and nothing is tried), tried after.
func All(ctx context.Context, layout line.Layout, targets upstream.Targets, scratch string, treeLog, log io.Writer, trying, tried func(LineStatus)) ([]LineStatus, error) {
	names, err := layout.Names()
	if err != nil {
		return nil, err
	}
	var all []LineStatus
	for _, name := range names {
		ln, err := layout.Get(name)
		if err != nil {
			return nil, err
		}
		cur, err := pin.Load(ln.Pin)
		if err != nil {
			return nil, err
		}
		patches, err := series.Require(ln.Dir, false)
		if err != nil {
			return nil, err
		}
		st := LineStatus{Line: name, Default: ln.Default, Pinned: cur.Version(), Patches: patches}
		st.Versions, _ = upstream.Versions("", targets, cur.Version())
		trying(st)
		if len(st.Versions) > 0 {
			st.Columns, err = Columns(ctx, worktree.CheckoutOf(ln, treeLog).Tree, cur, st.Versions, targets, patches, filepath.Join(scratch, name), log)
			if err != nil {
				return nil, fmt.Errorf("line %s: %w", name, err)
			}
		}
		tried(st)
		all = append(all, st)
	}
	return all, nil
}
