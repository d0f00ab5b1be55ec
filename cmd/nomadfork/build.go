package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	o := build.Options{Out: filepath.Join(e.bin, "nomad")}
	if err := e.parseOptions("build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", args, &o); err != nil {
		return err
	}
	if o.Tree == "" {
		if err := e.tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
			return err
		}
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	return release.Build(ctx, o, e.tree.Repo, p.Version(), e.log, filepath.Join(e.out, "ui-check"), e.tree.Log)
}

func init() { register(command{Name: "build", Run: runBuild}) }
