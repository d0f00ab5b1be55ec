package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w (free space or pass -o)", *out, err)
	}
	tools := vulns.Tools{ModDir: filepath.Join(e.root, "tools", "vulns"), Cache: filepath.Join(e.out, "vulns"), Log: e.stdout}
	var prep *vulns.Prepared
	if err := progress.Step(e.stdout, "preparing govulncheck and the vulnerability database", func() (err error) {
		prep, err = tools.Prepare(ctx)
		return err
	}); err != nil {
		return err
	}
	var rep *vulns.Report
	if *from != "" {
		f, err := os.Open(*from)
		if err != nil {
			return err
		}
		rep, err = vulns.ParseJSON(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", *from, err)
		}
	} else {
		if err := e.tree.Require(ctx, worktree.Need{Verb: "vulns", Base: true}); err != nil {
			return err
		}
		var raw strings.Builder
		what := fmt.Sprintf("govulncheck %s in %s with %s (a symbol-level scan of the nomad binary takes minutes)", *pkgs, e.relWorkTree(), prep.Toolchain)
		if err := progress.Step(e.stdout, what, func() (err error) {
			rep, err = vulns.Scan(ctx, vulns.ScanOptions{
				Govulncheck: prep.Govulncheck,
				DB:          prep.DB,
				Dir:         e.line.WorkTree,
				Patterns:    strings.Fields(*pkgs),
				Toolchain:   prep.Toolchain,
				Raw:         &raw,
			})
			return err
		}); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(*out, "govulncheck.json"), []byte(raw.String()), 0o644); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteJSON(filepath.Join(*out, "vulns.json"), rep); err != nil {
		return err
	}
	baselineFile := filepath.Join(e.line.Baselines, "vulns-"+lineName+".tsv")
	base, err := vulns.ReadBaseline(baselineFile)
	if err != nil {
		return err
	}
	advisories, err := vulns.Advisories(prep.DB, p.Module.Path, p.Version())
	if err != nil {
		return err
	}
	patches, err := series.List(e.line.Dir)
	if err != nil {
		return err
	}
	numbers := map[string]string{}
	for _, pt := range patches {
		numbers[fmt.Sprintf("%04d", pt.Number)] = pt.Name
	}
	if err := vulns.WriteTable(e.stdout, rep, base); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	vulns.WriteSummary(e.stdout, rep)
	fmt.Fprintf(e.stdout, "%d advisories of %s affect %s\n", len(advisories), p.Module.Path, p.Version())
	relBaseline, _ := filepath.Rel(e.root, baselineFile)
	if *doc {
		docFile := filepath.Join(e.root, "docs", "security", lineName+".md")
		data := vulns.Doc(vulns.DocInput{
			Line:         lineName,
			Command:      "nomadfork vulns" + e.lineArg() + " -doc",
			Pins:         prep.Pins,
			Report:       rep,
			Baseline:     base,
			BaselineFile: relBaseline,
			Advisories:   advisories,
			Patches:      numbers,
		})
		if err := os.MkdirAll(filepath.Dir(docFile), 0o755); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(docFile, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", docFile)
	}
	fmt.Fprintf(e.stdout, "wrote %s and %s\n", filepath.Join(*out, "govulncheck.json"), filepath.Join(*out, "vulns.json"))
	g := vulns.Check(vulns.GateInput{Report: rep, Baseline: base, Advisories: advisories, Patches: numbers})
	if !g.OK() {
		fmt.Fprint(e.stderr, g.Explain(relBaseline))
		return exitCode(1)
	}
	fmt.Fprintf(e.stdout, "vulns: ok against %s (%d entries)\n", relBaseline, len(base.Entries))
	return nil
}

func init() {
	register(command{name: "vulns", summary: "govulncheck on the line's work tree against the pinned offline database; the baseline gate (-doc: docs/security/<line>.md)",
		help: vulnsHelp, run: runVulns})
}
