package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// harnessVerb parses the options o of the harness verb name (parseOptions,
// with flags) and runs it with the harness options of the pinned version,
// scratch space in out/<name>, on the applied work tree.
func harnessVerb[O any](ctx context.Context, e *env, name, synopsis string, args []string, o *O, flags func(*flag.FlagSet, *O), verbose *bool, run func(harness.Options) error) error {
	if err := parseOptions(e, name, synopsis, args, o, flags); err != nil {
		return err
	}
	if err := e.Tree.Require(ctx, worktree.Need{Base: true}); err != nil {
		return err
	}
	p, err := e.Pin()
	if err != nil {
		return err
	}
	return run(e.Harness(p, name, *verbose))
}

// -v and -retry mean the same in each harness verb.

func verboseFlag(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "v", false, "print every test's output, not only failures")
}

func retryFlag(fs *flag.FlagSet, retry *bool) {
	fs.BoolVar(retry, "retry", true, "run each failed test once more, then on unpatched upstream, before it counts")
}
