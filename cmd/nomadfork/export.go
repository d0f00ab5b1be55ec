package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/export"
)

func runExport(ctx context.Context, e *env, args []string) error {
	o := export.Options{Out: filepath.Join(e.Out, "export"), Scratch: filepath.Join(e.Out, "export-scratch")}
	if err := e.parseOptions("export", "[-o dir] [-verify [-no-build]]", args, &o); err != nil {
		return err
	}
	return export.Run(ctx, e.Checkout, o)
}

func init() { register(command{Name: "export", Run: runExport, Lock: true}) }
