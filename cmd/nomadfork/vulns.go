package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

const vulnsUsage = "[-pkgs patterns] [-o dir] [-doc] [-from govulncheck.json]"

func runVulns(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "vulns", vulnsUsage)
	pkgs := fs.String("pkgs", ".", "the packages to scan, space-separated, relative to the work tree (default: the nomad binary's main package)")
	out := fs.String("o", "", "output `dir` (default out/vulns/<line>)")
	doc := fs.Bool("doc", false, "also write docs/security/<line>.md")
	from := fs.String("from", "", "scan nothing: read a saved govulncheck -json `file` (such as <o>/govulncheck.json)")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	lineName := p.Version()
	if *out == "" {
		*out = filepath.Join(e.out, "vulns", lineName)
	}
	if *from == "" {
		if err := e.tree.Require(ctx, worktree.Need{Verb: "vulns", Base: true}); err != nil {
			return err
		}
	}
	baselineFile := filepath.Join(e.line.Baselines, "vulns-"+lineName+".tsv")
	res, err := vulns.LineScan{
		Tools: vulns.Tools{ModDir: filepath.Join(e.root, "tools", "vulns"), Cache: filepath.Join(e.out, "vulns"), Log: e.stdout},
		Line:  lineName, Module: p.Module.Path, Version: p.Version(),
		Tree: e.line.WorkTree, Patches: e.line.Dir, Baseline: baselineFile,
		Patterns: strings.Fields(*pkgs), From: *from, Out: *out, Log: e.stdout,
		Scanning: func(prep *vulns.Prepared) string {
			return fmt.Sprintf("govulncheck %s in %s with %s (a symbol-level scan of the nomad binary takes minutes)", *pkgs, e.relWorkTree(), prep.Toolchain)
		},
	}.Run(ctx)
	if err != nil {
		return err
	}
	if err := vulns.WriteTable(e.stdout, res.Report, res.Baseline); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	vulns.WriteSummary(e.stdout, res.Report)
	fmt.Fprintf(e.stdout, "%d advisories of %s affect %s\n", len(res.Advisories), p.Module.Path, p.Version())
	relBaseline, _ := filepath.Rel(e.root, baselineFile)
	if *doc {
		docFile := filepath.Join(e.root, "docs", "security", lineName+".md")
		if err := res.WriteDoc(docFile, lineName, "nomadfork vulns"+e.lineArg()+" -doc", relBaseline); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", docFile)
	}
	fmt.Fprintf(e.stdout, "wrote %s and %s\n", filepath.Join(*out, "govulncheck.json"), filepath.Join(*out, "vulns.json"))
	if !res.Gate.OK() {
		fmt.Fprint(e.stderr, res.Gate.Explain(relBaseline))
		return exitCode(1)
	}
	fmt.Fprintf(e.stdout, "vulns: ok against %s (%d entries)\n", relBaseline, len(res.Baseline.Entries))
	return nil
}

func init() {
	register(command{Name: "vulns", Summary: "govulncheck on the line's work tree against the pinned offline database; the baseline gate (-doc: docs/security/<line>.md)", Run: runVulns})
}
