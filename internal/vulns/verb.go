package vulns

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// Options are the vulns verb's flags.
type Options struct {
	Pkgs, Out, From string
	Doc             bool
}

// A Job is the vulns verb on a line: its scan (LineScan) and gate.
type Job struct {
	Options Options
	// Root is the repository, Out its scratch directory (out/).
	Root, Out string
	// Checkout is the line and its work tree.
	worktree.Checkout
	// DocCommand is the command that writes the line's document, as the
	// document names it.
	DocCommand string
	// Log gets the progress and the report (rendered by it when it is a
	// hint.Renderer), Stderr the gate's failures.
	Log, Stderr io.Writer
}

// Run scans the line's work tree, applied (or reads Options.From), prints
// the table and the summary, writes the line's document with
// Options.Doc, and fails with exit code 1 when the gate does.
func (j Job) Run(ctx context.Context) error {
	p, err := j.Pin()
	if err != nil {
		return err
	}
	o, lineName := j.Options, p.Version()
	if o.From == "" {
		if err := j.Tree.Require(ctx, worktree.Need{Verb: "vulns", Base: true}); err != nil {
			return err
		}
	}
	out := o.Out
	if out == "" {
		out = filepath.Join(j.Out, "vulns", lineName)
	}
	baselineFile := filepath.Join(j.Line.Baselines, "vulns-"+lineName+".tsv")
	res, err := LineScan{
		Tools: Tools{ModDir: filepath.Join(j.Root, "tools", "vulns"), Cache: filepath.Join(j.Out, "vulns"), Log: j.Log},
		Line:  lineName, Module: p.Module.Path, Version: p.Version(),
		Tree: j.Line.WorkTree, Patches: j.Line.Dir, Baseline: baselineFile,
		Root: j.Root, Statuses: StatusFile(j.Line.Baselines, lineName),
		Patterns: strings.Fields(o.Pkgs), From: o.From, Out: out, Log: j.Log,
		Scanning: func(prep *Prepared) string {
			return hint.Text(j.Log, hint.Sprintf("govulncheck %s in %s with %s (a symbol-level scan of the nomad binary takes minutes)", o.Pkgs, hint.WorkTree, prep.Toolchain))
		},
	}.Run(ctx)
	if err != nil {
		return err
	}
	if err := WriteTable(j.Log, res.Report, res.Baseline); err != nil {
		return err
	}
	fmt.Fprintln(j.Log)
	WriteSummary(j.Log, res.Report)
	fmt.Fprintf(j.Log, "%d advisories of %s affect %s\n", len(res.Advisories), p.Module.Path, p.Version())
	relBaseline, _ := filepath.Rel(j.Root, baselineFile)
	if o.Doc {
		docFile := filepath.Join(j.Root, "docs", "security", lineName+".md")
		if err := res.WriteDoc(docFile, lineName, j.DocCommand, relBaseline); err != nil {
			return err
		}
		fmt.Fprintf(j.Log, "wrote %s\n", docFile)
	}
	fmt.Fprintf(j.Log, "wrote %s and %s\n", filepath.Join(out, "govulncheck.json"), filepath.Join(out, "vulns.json"))
	failed := false
	if !res.Gate.OK() {
		fmt.Fprint(j.Stderr, res.Gate.Explain(relBaseline))
		failed = true
	}
	for _, pr := range res.Record.Problems {
		fmt.Fprintln(j.Stderr, pr)
		failed = true
	}
	if failed {
		return cli.ExitCode(1)
	}
	fmt.Fprintf(j.Log, "vulns: the record's %d entries all have a status on %s\n", len(res.Record.Statuses), lineName)
	fmt.Fprintf(j.Log, "vulns: ok against %s (%d entries)\n", relBaseline, len(res.Baseline.Entries))
	return nil
}

// StatusFile is the file of a line's statuses of the record's entries,
// next to its baselines.
func StatusFile(baselines, line string) string {
	return filepath.Join(baselines, "security-"+line+".tsv")
}
