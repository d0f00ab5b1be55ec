package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"golang.org/x/mod/semver"
)

// rebaser returns the rebaser of the selected line: for a rebase in place
// in progress, the one that moves the line to the rebase's target.
func (e *env) rebaser() *rebase.Rebaser {
	r := &rebase.Rebaser{Tree: e.tree, Log: e.stdout,
		Files: rebase.Files{Pin: e.pinFile, Patches: e.patches, Changelog: e.log, Txn: filepath.Join(e.root, line.PatchesDir)}}
	if e.making {
		return r
	}
	if target, err := r.Target(context.Background()); err == nil {
		e.inPlace(r, target.Version())
	}
	return r
}

// inPlace points r's files at the selected line moved to version: its
// directory, pin and (for the default line) the default record, or (for
// another line) its work tree directory.
func (e *env) inPlace(r *rebase.Rebaser, version string) {
	dst, err := e.layout.At(version)
	if err != nil {
		return
	}
	r.Files.From = e.pinFile
	r.Files.FromDir = e.patches
	r.Files.Pin = dst.Pin
	r.Files.Patches = dst.Dir
	if e.line.Default {
		r.Files.DefaultFile = filepath.Join(e.root, line.PatchesDir, line.DefaultFile)
	} else {
		r.Files.WorkTreeFrom = filepath.Dir(e.workTree)
		r.Files.WorkTreeTo = filepath.Dir(dst.WorkTree)
	}
}

const helpRebase = `Moves a line's series onto a newer upstream: pins and imports the target,
then applies each patch (cleanly, by 3-way merge, or dropped when upstream
carries it). At a conflict it stops: resolve in the line's work tree, git
add, then rebase -continue, or rebase -abort (with the same -line). The pin,
the line's patches and CHANGELOG.md change only when it completes.

Without -new-line the selected line moves: patches/<old>/ becomes
patches/<new>/ (and its work tree moves with it). With -new-line the
selected line stays as it is and a new line <new> is made from it, in a
copy of its work tree at lines/<new>/nomad; continue or abort it with
-line <new>.`

func runRebase(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "rebase", "-onto <version> [-new-line] | -continue | -abort", helpRebase)
	onto := fs.String("onto", "", "move the series onto upstream `version`, such as v1.6.1")
	newLine := fs.Bool("new-line", false, "with -onto, make a new line of the target version from the selected line, which stays as it is")
	cont := fs.Bool("continue", false, "go on after resolving a conflict and staging it with 'git add', or after an interruption")
	abort := fs.Bool("abort", false, "undo the rebase: restore the work tree (remove a new line's); pin, patches and CHANGELOG.md were never touched")
	nested := upstream.NestedFlag{}
	fs.Var(nested, "nested", "use `path@version` for a nested module (repeatable); default: targets.json, else the tag commit's pseudo-version")
	if err := parseOnly(fs, args, 0); err != nil {
		return err
	}
	if count(*onto != "", *cont, *abort) != 1 {
		return usageError{errors.New("give exactly one of -onto <version>, -continue or -abort")}
	}
	if *newLine && *onto == "" {
		return usageError{errors.New("-new-line goes with -onto <version>")}
	}
	if *onto != "" && !semver.IsValid(*onto) {
		return usageError{fmt.Errorf("-onto %q is not a version such as v1.6.1", *onto)}
	}
	if *onto != "" {
		if err := e.useLine(); err != nil {
			return err
		}
	} else if err := e.useRebasingLine(ctx); err != nil {
		return err
	}
	e.rebasing = e.line.Name
	r := e.rebaser()
	if *abort {
		if err := r.Abort(ctx); err != nil {
			return err
		}
		if e.making {
			// The new line's work tree is a copy made for the rebase.
			if err := os.RemoveAll(filepath.Dir(e.workTree)); err != nil {
				return fmt.Errorf("removing the new line's work tree: %w", err)
			}
			fmt.Fprintf(e.stdout, "rebase aborted: line %s was not made and its work tree is removed\n", e.line.Name)
			return nil
		}
		fmt.Fprintln(e.stdout, "rebase aborted: work tree, pin and patches are as before")
		return nil
	}
	var rep *rebase.Report
	var err error
	if *cont {
		var patches []series.Patch
		patches, err = series.List(e.patchesOfRebase(ctx))
		if err != nil {
			return err
		}
		rep, err = r.Continue(ctx, patches)
	} else {
		rep, err = e.rebaseOnto(ctx, *onto, *newLine, nested)
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

// rebaseOnto starts a rebase of the selected line onto version, or, with
// newLine, of a copy of it that becomes line version.
func (e *env) rebaseOnto(ctx context.Context, version string, newLine bool, nested map[string]string) (*rebase.Report, error) {
	patches, err := series.List(e.patches)
	if err != nil {
		return nil, err
	}
	if !newLine {
		names, err := e.layout.Names()
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if n == version {
				return nil, usageError{fmt.Errorf("line %s exists already, so line %s cannot move onto it: work on line %s with -line, such as `nomadfork apply -line %s`; "+
					"to move line %s past it, rebase onto a version no line has", version, e.line.Name, version, version, e.line.Name)}
			}
		}
		r := e.rebaser()
		e.inPlace(r, version)
		return r.Onto(ctx, version, filepath.Join(e.root, upstream.TargetsFile), nested, patches)
	}
	nl := rebase.NewLine{Layout: e.layout, From: e.line, Tree: e.tree, Log: e.stdout,
		Changelog: e.log, Txn: filepath.Join(e.root, line.PatchesDir)}
	m, err := nl.Prepare(ctx, version)
	var exists *rebase.LineExistsError
	var notNewer *rebase.NotNewerError
	var left *rebase.WorkTreeLeftError
	switch {
	case errors.As(err, &exists):
		return nil, usageError{fmt.Errorf("line %s exists already: move it with `nomadfork rebase -line %s -onto <version>`", version, version)}
	case errors.As(err, &notNewer):
		return nil, fmt.Errorf("-onto %s is not newer than line %s", version, e.line.Name)
	case errors.As(err, &left):
		return nil, fmt.Errorf("%s exists but line %s does not: if a rebase making it stopped, run `nomadfork rebase -continue -line %s` or `-abort -line %s`; otherwise move it away",
			left.WorkTree, version, version, version)
	case err != nil:
		return nil, err
	}
	e.setLine(m.Line)
	e.making = true
	return m.Start(ctx, filepath.Join(e.root, upstream.TargetsFile), nested, patches)
}

// useRebasingLine selects the line of a rebase in progress: the line
// -line names (default: the default line), or a line a stopped rebase
// -new-line is making, which has a work tree but no files yet.
func (e *env) useRebasingLine(ctx context.Context) error {
	err := e.useLine()
	var u usageError
	if err == nil || !errors.As(err, &u) || e.lineName == "" {
		return err
	}
	ln, lerr := e.layout.At(e.lineName)
	if lerr != nil {
		return lerr
	}
	e.setLine(ln)
	if !e.rebaser().InProgress(ctx) {
		if ctx.Err() != nil {
			// An interrupted lookup is no answer.
			return ctx.Err()
		}
		return err
	}
	e.making = true
	return nil
}

// patchesOfRebase is where the series a rebase in progress started from
// lives: the line's own patches, or for a line being made, the patches of
// the line it is made from.
func (e *env) patchesOfRebase(ctx context.Context) string {
	if !e.making {
		return e.patches
	}
	from, err := e.rebaser().From(ctx)
	if err != nil {
		return e.patches
	}
	if ln, err := e.layout.Get(from); err == nil {
		return ln.Dir
	}
	return e.patches
}

func init() {
	register(command{name: "rebase", summary: "move the series onto a newer upstream (-onto v, -continue, -abort)",
		help: helpRebase, run: runRebase, lock: true})
}
