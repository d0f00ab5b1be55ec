package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runExtract(ctx context.Context, e *env, args []string) error {
	o := worktree.ExtractOptions{Txn: filepath.Join(e.Root, line.PatchesDir)}
	if err := e.parseOptions("extract", "[-force]", args, &o); err != nil {
		return err
	}
	changes, renum, err := e.Tree.Extract(ctx, e.Line.Dir, o)
	if err != nil {
		return err
	}
	worktree.ExtractReport(e.Tree.Log, e.stderr, filepath.Join(line.PatchesDir, e.Line.Name), changes, renum)
	return nil
}

func init() { register(command{Name: "extract", Run: runExtract, Lock: true}) }
