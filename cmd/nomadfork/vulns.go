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

const vulnsHelp = `
Scans the line's work tree (run apply first) for known vulnerabilities:
govulncheck at symbol level against an offline database. Both are pinned in
tools/vulns/go.mod (golang.org/x/vuln, golang.org/x/vulndb, and the Go
toolchain the scan loads the code with, so the standard library's findings
are those of the release the fork ships); go.sum holds their checksums, which
the go command verifies. The first run builds the tools into
out/vulns/tools/ and the database (vulndb's data/osv, indexed with its
cmd/indexdb) into out/vulns/db/<version>/; later runs reuse them.

Prints a table (ID, aliases, module, found -> fixed, reachable with the
vulnerable symbol, baseline status) and one example trace per reachable
finding; writes <o>/govulncheck.json (the scanner's stream) and
<o>/vulns.json (the findings).

The gate: patches/<line>/baseline/vulns-<line>.tsv lists what the line
carries (open, with the reason), fixes (fixed:NNNN, a patch of the series)
or is not affected by (not-affected), and every advisory of Nomad itself
that affects the line's version. Exits 1 on a reachable finding not in the
baseline, one the baseline says a patch fixes, a baseline entry no longer
found (remove it: the baseline only shrinks) and an advisory of Nomad with
no entry. -doc also writes docs/security/<line>.md from the baseline, the
series and the scan (docs/vulns.md explains all of it).`

func runVulns(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "vulns", vulnsUsage, vulnsHelp)
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
	register(command{name: "vulns", summary: "govulncheck on the line's work tree against the pinned offline database; the baseline gate (-doc: docs/security/<line>.md)",
		help: vulnsHelp, run: runVulns})
}
