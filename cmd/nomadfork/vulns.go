package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"github.com/nomad-client-fork/nomad-client-fork/internal/vulns"
)

func runVulns(ctx context.Context, e *env, args []string) error {
	var o vulns.Options
	if err := e.parseOptions("vulns", "[-pkgs patterns] [-o dir] [-doc] [-from govulncheck.json]", args, &o); err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	if o.From == "" {
		if err := e.tree.Require(ctx, worktree.Need{Verb: "vulns", Base: true}); err != nil {
			return err
		}
	}
	return vulns.Job{Options: o, Root: e.root, Out: e.out, Line: e.line, Pin: p, DocCommand: "nomadfork vulns" + e.lineArg() + " -doc",
		Log: e.tree.Log, Stderr: e.stderr}.Run(ctx)
}

func init() { register(command{Name: "vulns", Run: runVulns}) }
