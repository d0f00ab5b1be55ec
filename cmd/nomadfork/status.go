package main

import (
	"context"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/status"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	var o status.Options
	if err := e.parseOptions("status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]", args, &o); err != nil {
		return err
	}
	return e.Status(ctx, o, fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02")))
}

func init() { register(command{Name: "status", Run: runStatus, Lock: true}) }
