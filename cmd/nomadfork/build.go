package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	o := build.Options{Out: filepath.Join(e.Bin, "nomad")}
	if err := e.parseOptions("build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", args, &o); err != nil {
		return err
	}
	if o.Tree == "" {
		if err := e.Tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
			return err
		}
	}
	p, err := e.Pin()
	if err != nil {
		return err
	}
	return release.Build(ctx, o, e.Tree.Repo, p.Version(), e.Changelog, filepath.Join(e.Out, "ui-check"), e.Tree.Log)
}

func init() { register(command{Name: "build", Run: runBuild}) }
