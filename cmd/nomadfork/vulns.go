package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

func runVulns(ctx context.Context, e *env, args []string) error {
	var o vulns.Options
	if err := e.parseOptions("vulns", "[-pkgs patterns] [-o dir] [-doc] [-from govulncheck.json]", args, &o); err != nil {
		return err
	}
	doc := "nomadfork vulns -doc"
	if e.LineName != "" && !e.Line.Default {
		doc = "nomadfork vulns -line " + e.Line.Name + " -doc"
	}
	return vulns.Job{Options: o, Root: e.Root, Out: e.Out, Checkout: e.Checkout, DocCommand: doc, Log: e.Log, Stderr: e.stderr}.Run(ctx)
}

func init() { register(command{Name: "vulns", Run: runVulns}) }
