package main

import (
	"context"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/check"
)

func runCheck(ctx context.Context, e *env, args []string) error {
	var v check.Verb
	if err := e.parseOptions("check", "[-no-build | -tip-only | -prefixes-only] [-allow-empty] [-tests [-v]]", args, &v); err != nil {
		return err
	}
	return e.printed(e.Check(ctx, v))
}

func init() { register(command{Name: "check", Run: runCheck, Lock: true}) }
