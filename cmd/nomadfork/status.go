package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/status"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	var o status.Options
	if err := e.parseOptions("status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]", args, &o); err != nil {
		return err
	}
	o.LineGiven = e.LineName != ""
	return status.Run(ctx, o, e.Checkout, e.Layout, filepath.Join(e.Out, "status"), e.Stdout, fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02")))
}

func init() { register(command{Name: "status", Run: runStatus, Lock: true}) }
