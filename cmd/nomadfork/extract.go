package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runExtract(ctx context.Context, e *env, args []string) error {
	o := worktree.ExtractOptions{Txn: filepath.Join(e.Root, line.PatchesDir)}
	if err := parseOptions(e, "extract", "[-force]", args, &o, extractFlags); err != nil {
		return err
	}
	changes, renum, err := e.Tree.Extract(ctx, e.Line.Dir, o)
	if err != nil {
		return err
	}
	worktree.ExtractReport(e.Tree.Log, e.stderr, filepath.Join(line.PatchesDir, e.Line.Name), changes, renum)
	return nil
}

// extractFlags declares extract's flags on fs, into o.
func extractFlags(fs *flag.FlagSet, o *worktree.ExtractOptions) {
	fs.BoolVar(&o.Force, "force", false, "overwrite patch files changed since nomadfork last wrote or applied them")
}

func init() { register(command{Name: "extract", Run: runExtract, Lock: true}) }
