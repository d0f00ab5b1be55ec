package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	var o rebase.StatusOptions
	if err := e.parseOptions("status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]", args, &o); err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.Root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	scratch := filepath.Join(e.Out, "status")
	if !o.AllLines {
		return rebase.StatusOf(ctx, e.Tree, e.Line, o.Against, targets, scratch, e.Stdout)
	}
	if o.Against != "" || e.LineName != "" {
		return usageError(errors.New("-all-lines tries every line against targets.json's newer versions: no -against or -line"))
	}
	generated := fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02"))
	return rebase.StatusEveryLine(ctx, o, e.Layout, targets, scratch, e.TreeOf, e.Stdout, generated)
}

func init() { register(command{Name: "status", Run: runStatus, Lock: true}) }
