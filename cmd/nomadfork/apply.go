package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// runApply makes the line's work tree hold the pinned upstream plus the
// series (worktree.Tree.Apply); -force also aborts a stopped rebase, and
// -abort ends a stopped apply (saying nothing more).
func runApply(ctx context.Context, e *env, args []string) error {
	var o worktree.ApplyOptions
	if err := parseOptions(e, "apply", "[-force | -continue | -abort] [-allow-empty]", args, &o, applyFlags); err != nil {
		return err
	}
	t := e.Tree
	if o.Abort {
		return t.Apply(ctx, "", nil, o)
	}
	if o.Force {
		if err := e.Session().Rebaser().AbortStopped(ctx); err != nil {
			return err
		}
	}
	patches, p, base, err := e.SeriesAndBase(ctx, o.AllowEmpty)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, o); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	return e.printed(hint.Sprintf("%s is upstream %s plus %d patch(es), HEAD %s", hint.WorkTree, p.Version(), len(patches), head), nil)
}

// resumeApply is apply's resume rule: apply again, with -continue or
// -force as given (interrupted before it discarded the work tree's
// changes, a plain apply would refuse them).
func resumeApply(ctx context.Context, e *env, args []string) (string, bool) {
	has := given(args, "continue", "force")
	switch {
	case has["continue"]:
		return e.command(hint.Run("apply", "-continue")), true
	case has["force"]:
		return e.command(hint.Run("apply", "-force")), true
	}
	return e.command(hint.Run("apply")), true
}

// applyFlags declares apply's flags on fs, into o.
func applyFlags(fs *flag.FlagSet, o *worktree.ApplyOptions) {
	fs.BoolVar(&o.Force, "force", false, "discard uncommitted changes, unexported commits and a stopped apply or rebase in nomad/")
	fs.BoolVar(&o.Continue, "continue", false, "resume a stopped apply after resolving the conflicts and staging them with 'git add'")
	fs.BoolVar(&o.Abort, "abort", false, "end a stopped apply, keeping the patches applied so far")
	fs.BoolVar(&o.AllowEmpty, "allow-empty", false, "accept an empty or missing patches/ (nomad/ becomes bare upstream)")
}

func init() { register(command{Name: "apply", Run: runApply, Resume: resumeApply, Lock: true}) }
