package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
	"golang.org/x/mod/semver"
)

// session is the rebase session of the selected line; a line it selects
// (one being made) becomes the env's line.
func (e *env) session() *rebase.Session {
	if e.rebase == nil {
		e.rebase = &rebase.Session{Layout: e.layout, Line: e.line, Tree: e.tree, Changelog: e.log, Log: e.stdout,
			NewTree: func(ln line.Line) *worktree.Tree {
				e.setLine(ln)
				e.rebasing = ln.Name
				return e.tree
			}}
	}
	return e.rebase
}

// rebaser returns the rebaser of the selected line.
func (e *env) rebaser() *rebase.Rebaser { return e.session().Rebaser() }

// useRebasingLine selects the line of a rebase in progress (see
// rebase.Session.Resume).
func (e *env) useRebasingLine(ctx context.Context) error {
	err := e.session().Resume(ctx, e.lineName)
	if errors.Is(err, line.ErrUnknown) {
		return usageError(err)
	}
	return err
}

func runRebase(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "rebase", "-onto <version> [-new-line] | -continue | -abort")
	onto := fs.String("onto", "", "move the series onto upstream `version`, such as v1.6.1")
	newLine := fs.Bool("new-line", false, "with -onto, make a new line of the target version from the selected line, which stays as it is")
	cont := fs.Bool("continue", false, "go on after resolving a conflict and staging it with 'git add', or after an interruption")
	abort := fs.Bool("abort", false, "undo the rebase: restore the work tree (remove a new line's); pin, patches and CHANGELOG.md were never touched")
	nested := upstream.NestedFlag{}
	fs.Var(nested, "nested", "use `path@version` for a nested module (repeatable); default: targets.json, else the tag commit's pseudo-version")
	if err := cli.Parse(fs, args, 0); err != nil {
		return err
	}
	if count(*onto != "", *cont, *abort) != 1 {
		return usageError(errors.New("give exactly one of -onto <version>, -continue or -abort"))
	}
	if *newLine && *onto == "" {
		return usageError(errors.New("-new-line goes with -onto <version>"))
	}
	if *onto != "" && !semver.IsValid(*onto) {
		return usageError(fmt.Errorf("-onto %q is not a version such as v1.6.1", *onto))
	}
	if *onto != "" {
		if err := e.useLine(); err != nil {
			return err
		}
	} else if err := e.useRebasingLine(ctx); err != nil {
		return err
	}
	e.rebasing = e.line.Name
	s := e.session()
	var rep *rebase.Report
	var err error
	switch {
	case *abort:
		if err := s.Abort(ctx); err != nil {
			return err
		}
		if s.Making {
			fmt.Fprintf(e.stdout, "rebase aborted: line %s was not made and its work tree is removed\n", e.line.Name)
		} else {
			fmt.Fprintln(e.stdout, "rebase aborted: work tree, pin and patches are as before")
		}
		return nil
	case *cont:
		rep, err = s.Continue(ctx)
	default:
		rep, err = s.Onto(ctx, *onto, *newLine, nested)
		var exists *rebase.LineExistsError
		var notNewer *rebase.NotNewerError
		var left *rebase.WorkTreeLeftError
		var onLine *rebase.MoveOntoLineError
		switch {
		case errors.As(err, &onLine):
			return usageError(err)
		case errors.As(err, &exists):
			return usageError(hint.Errorf("line %s exists already: move it with %s", *onto, hint.Step{Verb: "rebase", Args: []string{"-onto", "<version>"}, Line: *onto}))
		case errors.As(err, &notNewer):
			return fmt.Errorf("-onto %s is not newer than line %s", *onto, e.line.Name)
		case errors.As(err, &left):
			return hint.Errorf("%s exists but line %s does not: if a rebase making it stopped, run %s or %s; otherwise move it away",
				left.WorkTree, *onto, hint.Run("rebase", "-continue").OnLine(*onto), hint.Run("rebase", "-abort").OnLine(*onto))
		}
	}
	if err != nil {
		return err
	}
	if rep.Stopped != nil {
		return rep.Stopped.StopError()
	}
	return e.finishRebase(rep)
}

// finishRebase reports a completed rebase and moves the line when the
// rebase moved it.
func (e *env) finishRebase(rep *rebase.Report) error {
	fmt.Fprintln(e.stdout, rep.Summary())
	if rep.To != e.line.Name {
		moved, err := e.layout.At(rep.To)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "line %s is now line %s: %s\n", e.line.Name, rep.To, moved.Dir)
	}
	fmt.Fprintf(e.stdout, "updated %s/%s/ (pin and patches) and CHANGELOG.md; run `nomadfork check -line %s`, then `nomadfork baseline -line %s` before `nomadfork test -line %s`\n",
		line.PatchesDir, rep.To, rep.To, rep.To, rep.To)
	return nil
}

func init() {
	register(command{Name: "rebase", Summary: "move the series onto a newer upstream (-onto v, -continue, -abort)", Run: runRebase, Lock: true})
}
