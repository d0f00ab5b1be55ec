package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	o := build.Options{Out: filepath.Join(e.Bin, "nomad")}
	if err := e.parseOptions("build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", args, &o); err != nil {
		return err
	}
	return e.Build(ctx, o)
}

func init() { register(command{Name: "build", Run: runBuild}) }
