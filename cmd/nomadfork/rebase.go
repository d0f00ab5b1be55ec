package main

import (
	"context"
	"flag"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

func runRebase(ctx context.Context, e *env, args []string) error {
	var o rebase.Options
	fs := newFlags(e, "rebase", "-onto <version> [-new-line] | -continue | -abort")
	rebaseFlags(fs, &o)
	if err := cli.Parse(fs, args, 0); err != nil {
		return err
	}
	if err := o.Check(); err != nil {
		return err
	}
	var s *rebase.Session
	if o.Onto != "" {
		if err := e.UseLine(); err != nil {
			return err
		}
		s = e.Session()
	} else {
		var err error
		if s, err = e.ResumeSession(ctx); err != nil {
			return err
		}
	}
	return e.printed(s.Done(s.Run(ctx, o)))
}

// resumeRebase is rebase's resume rule: a rebase in progress continues on
// its line, or an interrupted -abort aborts again.
func resumeRebase(ctx context.Context, e *env, args []string) (string, bool) {
	if !e.Session().Rebaser().InProgress(ctx) {
		return "", false
	}
	if given(args, "abort")["abort"] {
		return e.command(hint.Run("rebase", "-abort").OnLine(e.Line.Name)), true
	}
	return e.command(hint.Run("rebase", "-continue").OnLine(e.Line.Name)), true
}

// rebaseFlags declares rebase's flags on fs, into o.
func rebaseFlags(fs *flag.FlagSet, o *rebase.Options) {
	fs.StringVar(&o.Onto, "onto", "", "move the series onto upstream `version`, such as v1.6.1")
	fs.BoolVar(&o.NewLine, "new-line", false, "with -onto, make a new line of the target version from the selected line, which stays as it is")
	fs.BoolVar(&o.Continue, "continue", false, "go on after resolving a conflict and staging it with 'git add', or after an interruption")
	fs.BoolVar(&o.Abort, "abort", false, "undo the rebase: restore the work tree (remove a new line's); pin, patches and CHANGELOG.md were never touched")
	o.Nested = upstream.NestedFlag{}
	fs.Var(o.Nested, "nested", "use `path@version` for a nested module (repeatable); default: targets.json, else the tag commit's pseudo-version")
}

func init() { register(command{Name: "rebase", Run: runRebase, Resume: resumeRebase, Lock: true}) }
