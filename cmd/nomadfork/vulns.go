package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

func runVulns(ctx context.Context, e *env, args []string) error {
	var o vulns.Options
	if err := parseOptions(e, "vulns", "[-pkgs patterns] [-o dir] [-doc] [-from govulncheck.json]", args, &o, vulnsFlags); err != nil {
		return err
	}
	doc := "nomadfork vulns -doc"
	if e.LineName != "" && !e.Line.Default {
		doc = "nomadfork vulns -line " + e.Line.Name + " -doc"
	}
	return vulns.Job{Options: o, Root: e.Root, Out: e.Out, Checkout: e.Checkout, DocCommand: doc, Log: e.Log, Stderr: e.stderr}.Run(ctx)
}

// vulnsFlags declares vulns' flags on fs, into o.
func vulnsFlags(fs *flag.FlagSet, o *vulns.Options) {
	fs.StringVar(&o.Pkgs, "pkgs", ".", "the packages to scan, space-separated, relative to the work tree (default: the nomad binary's main package)")
	fs.StringVar(&o.Out, "o", "", "output `dir` (default out/vulns/<line>)")
	fs.BoolVar(&o.Doc, "doc", false, "also write docs/security/<line>.md")
	fs.StringVar(&o.From, "from", "", "scan nothing: read a saved govulncheck -json `file` (such as <o>/govulncheck.json)")
}

func init() { register(command{Name: "vulns", Run: runVulns}) }
