package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	o := build.Options{Out: filepath.Join(e.Bin, "nomad")}
	if err := e.parseOptions("build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", args, &o); err != nil {
		return err
	}
	if o.Tree == "" {
		// The line's work tree: no apply or rebase may change it
		// half-way through the build.
		release, err := e.lock("build")
		if err != nil {
			return err
		}
		defer release()
	}
	return release.Build(ctx, e.Checkout, o, e.Changelog, filepath.Join(e.Out, "ui-check"), e.Log)
}

func init() { register(command{Name: "build", Run: runBuild}) }
