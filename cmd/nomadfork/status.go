package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]")
	against := fs.String("against", "", "comma-separated upstream `versions` to try the series against (default: targets.json's newer than the pin)")
	allLines := fs.Bool("all-lines", false, "every maintained line, each against targets.json's versions newer than its pin")
	markdown := fs.Bool("markdown", false, "with -all-lines, print the status as Markdown, a table per line")
	readme := fs.Bool("doc", false, "with -all-lines, write that Markdown into docs/status.md between its status-per-line markers")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	if (*markdown || *readme) && !*allLines {
		return usageError(errors.New("-markdown and -doc go with -all-lines"))
	}
	if *allLines {
		if *against != "" || e.lineName != "" {
			return usageError(errors.New("-all-lines tries every line against targets.json's newer versions: no -against or -line"))
		}
		return e.statusAllLines(ctx, targets, *markdown, *readme)
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	versions, err := upstream.Versions(*against, targets, cur.Version())
	if err != nil {
		return usageError(err)
	}
	patches, err := series.Require(e.line.Dir, false)
	if err != nil {
		return err
	}
	cols, err := rebase.Status(ctx, e.tree, cur, versions, targets, patches, filepath.Join(e.out, "status"), e.stdout)
	if err != nil {
		return err
	}
	rebase.Print(e.stdout, cols, patches, cur.Version())
	return nil
}

// statusAllLines tries every line's series against the versions
// targets.json names newer than the line's pin, and prints the report of
// each, or the Markdown of all (markdown), or writes that into docs/status.md
// (readme).
func (e *env) statusAllLines(ctx context.Context, targets upstream.Targets, markdown, readme bool) error {
	report := !markdown && !readme
	all, err := rebase.StatusAll(ctx, e.layout, targets, filepath.Join(e.out, "status"), e.treeOf, e.stdout,
		func(st rebase.LineStatus) {
			switch {
			case len(st.Versions) > 0:
				fmt.Fprintf(e.stdout, "==> line %s against %s\n", st.Line, strings.Join(st.Versions, ", "))
			case report:
				fmt.Fprintf(e.stdout, "line %s: no newer version to try (%s names none)\n", st.Line, upstream.TargetsFile)
			}
		},
		func(st rebase.LineStatus) {
			if report && len(st.Versions) > 0 {
				rebase.Print(e.stdout, st.Columns, st.Patches, st.Pinned)
			}
		})
	if err != nil {
		return err
	}
	generated := fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02"))
	doc := rebase.Markdown(all, generated)
	switch {
	case markdown:
		fmt.Fprint(e.stdout, doc)
	case readme:
		file := filepath.Join(e.root, rebase.StatusDoc)
		if err := rebase.WriteStatusDoc(file, doc); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the status of %d line(s) into %s\n", len(all), file)
	}
	return nil
}

func init() {
	register(command{Name: "status", Summary: "read-only: how each patch fares against newer upstream versions (-all-lines -doc: into docs/status.md)", Run: runStatus, Lock: true})
}
