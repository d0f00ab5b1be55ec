package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Options are the status verb's flags.
type Options struct {
	Against                 string
	AllLines, Markdown, Doc bool
	// LineGiven: the command line named a line with -line.
	LineGiven bool
}

func usage(format string, args ...any) error { return cli.UsageError{Err: fmt.Errorf(format, args...)} }

// Check refuses a combination of the flags that means nothing.
func (o Options) Check() error {
	if (o.Markdown || o.Doc) && !o.AllLines {
		return usage("-markdown and -doc go with -all-lines")
	}
	if o.Markdown && o.Doc {
		return usage("-markdown and -doc exclude each other: -markdown prints, -doc writes docs/status.md")
	}
	return nil
}

// Run is the status verb with o: it tries the series of line c against
// the versions o names (Of), or with o.AllLines every line of layout
// (EveryLine), in scratch, and prints to log; generated says what made
// the document.
func Run(ctx context.Context, o Options, c worktree.Checkout, layout line.Layout, scratch string, log io.Writer, generated string) error {
	if o.AllLines && (o.Against != "" || o.LineGiven) {
		return cli.UsageError{Err: errors.New("-all-lines tries every line against targets.json's newer versions: no -against or -line")}
	}
	targets, err := upstream.LoadTargets(filepath.Join(layout.Root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	if !o.AllLines {
		return Of(ctx, c, o.Against, targets, scratch, log)
	}
	return EveryLine(ctx, o, layout, targets, scratch, c.Tree.Log, log, generated)
}

// Of tries the series of line c against the versions against names
// (default: those targets names newer than the pin) in scratch, and
// prints the table to log.
func Of(ctx context.Context, c worktree.Checkout, against string, targets upstream.Targets, scratch string, log io.Writer) error {
	cur, err := c.Pin()
	if err != nil {
		return err
	}
	versions, err := upstream.Versions(against, targets, cur.Version())
	if err != nil {
		return cli.UsageError{Err: err}
	}
	patches, err := series.Require(c.Line.Dir, false)
	if err != nil {
		return err
	}
	cols, err := Columns(ctx, c.Tree, cur, versions, targets, patches, scratch, log)
	if err != nil {
		return err
	}
	Print(log, cols, patches, cur.Version())
	return nil
}

// EveryLine tries every line's series against the versions targets names
// newer than the line's pin (All, with work trees writing to treeLog),
// and prints the report of each to log, or with o.Markdown the Markdown
// of all, or with o.Doc writes that into the status document; generated
// says what made it.
func EveryLine(ctx context.Context, o Options, layout line.Layout, targets upstream.Targets, scratch string, treeLog, log io.Writer, generated string) error {
	report := !o.Markdown && !o.Doc
	all, err := All(ctx, layout, targets, scratch, treeLog, log,
		func(st LineStatus) {
			switch {
			case len(st.Versions) > 0:
				fmt.Fprintf(log, "==> line %s against %s\n", st.Line, strings.Join(st.Versions, ", "))
			case report:
				fmt.Fprintf(log, "line %s: no newer version to try (%s names none)\n", st.Line, upstream.TargetsFile)
			}
		},
		func(st LineStatus) {
			if report && len(st.Versions) > 0 {
				Print(log, st.Columns, st.Patches, st.Pinned)
			}
		})
	if err != nil {
		return err
	}
	doc := Markdown(all, generated)
	switch {
	case o.Markdown:
		fmt.Fprint(log, doc)
	case o.Doc:
		file := filepath.Join(layout.Root, Doc)
		if err := WriteDoc(file, doc); err != nil {
			return err
		}
		fmt.Fprintf(log, "wrote the status of %d line(s) into %s\n", len(all), file)
	}
	return nil
}
