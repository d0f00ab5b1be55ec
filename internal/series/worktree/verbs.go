package worktree

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// The flags of the verbs that drive the work tree (apply, extract) and
// what extract reports.

// Flags declares the apply verb's flags on fs.
func (o *ApplyOptions) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Force, "force", false, "discard uncommitted changes, unexported commits and a stopped apply or rebase in nomad/")
	fs.BoolVar(&o.Continue, "continue", false, "resume a stopped apply after resolving the conflicts and staging them with 'git add'")
	fs.BoolVar(&o.Abort, "abort", false, "end a stopped apply, keeping the patches applied so far")
	fs.BoolVar(&o.AllowEmpty, "allow-empty", false, "accept an empty or missing patches/ (nomad/ becomes bare upstream)")
}

// Check refuses flags that exclude each other.
func (o ApplyOptions) Check() error {
	return cli.AtMostOne(cli.Flag{Name: "force", Set: o.Force}, cli.Flag{Name: "continue", Set: o.Continue}, cli.Flag{Name: "abort", Set: o.Abort})
}

// Flags declares the extract verb's flags on fs.
func (o *ExtractOptions) Flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Force, "force", false, "overwrite patch files changed since nomadfork last wrote or applied them")
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
