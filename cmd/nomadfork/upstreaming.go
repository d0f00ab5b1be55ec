package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/export"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
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

const (
	helpRebase = `Moves a line's series onto a newer upstream: pins and imports the target,
then applies each patch (cleanly, by 3-way merge, or dropped when upstream
carries it). At a conflict it stops: resolve in the line's work tree, git
add, then rebase -continue, or rebase -abort (with the same -line). The pin,
the line's patches and CHANGELOG.md change only when it completes.

Without -new-line the selected line moves: patches/<old>/ becomes
patches/<new>/ (and its work tree moves with it). With -new-line the
selected line stays as it is and a new line <new> is made from it, in a
copy of its work tree at lines/<new>/nomad; continue or abort it with
-line <new>.`
	helpDrop = `Records that upstream carries a patch in a different form (Upstream-Status:
applied <version>, Applied-Upstream: <url>); the next rebase onto that
version or later drops it. The version must be served and newer than the pin.
When the line's work tree holds the series as last applied, the edited
patch is applied there too, so the next extract keeps it (otherwise run
apply before extract, which refuses to overwrite the edit).

With -verify, while a rebase of the line is stopped at the patch: applies
the patch's _test.go hunks without its production changes to the rebase's
target in a scratch tree, runs its own tests there in the sandbox and, only
if every one passes, drops the patch (the changelog entry names -pr, the
version and the tests) and goes on with the rebase. Otherwise the rebase
stays stopped at the patch.`
	helpStatus = `Read-only: tries the line's series against newer upstream versions in
scratch trees and prints a table, a row per patch. Without -against: the
versions in targets.json newer than the line's pin. -all-lines does so for
every maintained line; with -markdown it prints a Markdown table per line,
with -doc it writes them into docs/status.md between its status-per-line
markers (make status-doc): the only file status writes.`
	helpExport = `Writes upstream-ready commits (fork trailers removed, a .changelog entry
each): per PR (a patch and its Depends-On patches) a branch
export/NNNN-subject in the line's work tree and an mbox; the whole series as
series.mbox.`
)

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
		return e.stopError(rep.Stopped)
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

// stopError is the error of a rebase stopped at a conflict, naming the
// line's work tree and, for a line other than the default one, -line in
// the commands that go on.
func (e *env) stopError(o *rebase.Outcome) error {
	err := o.StopError()
	var ce *worktree.ConflictError
	if !errors.As(err, &ce) || e.line.Default {
		return err
	}
	ce.Resume = strings.ReplaceAll(ce.Resume, "in nomad/", "in "+e.relWorkTree())
	for _, verb := range []string{"-continue", "-abort"} {
		ce.Resume = strings.ReplaceAll(ce.Resume, "`nomadfork rebase "+verb+"`", "`nomadfork rebase "+verb+" -line "+e.line.Name+"`")
	}
	return err
}

// rebaseOnto starts a rebase of the selected line onto version, or, with
// newLine, of a copy of it that becomes line version.
func (e *env) rebaseOnto(ctx context.Context, version string, newLine bool, nested map[string]string) (*rebase.Report, error) {
	patches, err := series.List(e.patches)
	if err != nil {
		return nil, err
	}
	names, err := e.layout.Names()
	if err != nil {
		return nil, err
	}
	if !newLine {
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
	for _, n := range names {
		if n == version {
			return nil, usageError{fmt.Errorf("line %s exists already: move it with `nomadfork rebase -line %s -onto <version>`", version, version)}
		}
	}
	if semver.Compare(version, e.line.Name) <= 0 {
		return nil, fmt.Errorf("-onto %s is not newer than line %s", version, e.line.Name)
	}
	target, err := e.layout.At(version)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(target.WorkTree); err == nil {
		return nil, fmt.Errorf("%s exists but line %s does not: if a rebase making it stopped, run `nomadfork rebase -continue -line %s` or `-abort -line %s`; otherwise move it away",
			target.WorkTree, version, version, version)
	}
	from := e.pinFile
	copied, err := e.tree.Copy(ctx, target.WorkTree)
	if err != nil {
		return nil, err
	}
	r := &rebase.Rebaser{Tree: copied, Log: e.stdout,
		Files: rebase.Files{From: from, Pin: target.Pin, Patches: target.Dir, Changelog: e.log, Txn: filepath.Join(e.root, line.PatchesDir)}}
	e.setLine(target)
	e.making = true
	rep, err := r.Onto(ctx, version, filepath.Join(e.root, upstream.TargetsFile), nested, patches)
	if err != nil && !r.InProgress(ctx) {
		// Nothing started: leave no half-made line behind.
		os.RemoveAll(filepath.Dir(target.WorkTree))
	}
	return rep, err
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

func runDrop(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>] | <patch> -verify -pr <url>", helpDrop)
	applied := fs.String("applied-upstream", "", "the upstream `version` that carries the change")
	pr := fs.String("pr", "", "the https `url` of the upstream pull request that carries it")
	verify := fs.Bool("verify", false, "while a rebase of the line is stopped at the patch: prove that the rebase's target carries it (its own tests pass there without its production changes, in the sandbox), drop it and go on with the rebase")
	// Accept the patch before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseOnly(fs, args, 1); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 || name == "" {
		return usageError{errors.New("give one patch, by file name or number")}
	}
	if *pr != "" {
		if u, err := url.Parse(*pr); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" {
			return usageError{fmt.Errorf("-pr %q is not an https URL of a pull request", *pr)}
		}
	}
	if *verify {
		if *pr == "" || *applied != "" {
			return usageError{errors.New("-verify takes -pr <url> and no -applied-upstream (the version is the rebase's target)")}
		}
		return dropVerified(ctx, e, name, *pr)
	}
	if err := e.useLine(); err != nil {
		return err
	}
	if !semver.IsValid(*applied) {
		return usageError{fmt.Errorf("-applied-upstream %q is not a version such as v1.6.0", *applied)}
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "drop", NoOp: true}); err != nil {
		return err
	}
	if err := refuseUnextracted(ctx, e); err != nil {
		return err
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	patch, err := rebase.Drop(ctx, cur, e.patches, name, *applied, *pr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: Upstream-Status: applied %s; the next rebase onto %s or later drops it\n", patch.Name, *applied, *applied)
	return e.reapply(ctx, patch.Name)
}

// refuseUnextracted refuses a verb that edits a patch file while the work
// tree holds commits not in patches/: the file's edit and the commits
// could then each be kept only by discarding the other (apply and extract
// would each advise the other).
func refuseUnextracted(ctx context.Context, e *env) error {
	t := e.tree
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return ctx.Err()
	}
	patches, err := series.List(e.patches)
	if err != nil {
		return err
	}
	lost, err := t.Unexported(ctx, patches)
	if err != nil || len(lost) == 0 {
		return err
	}
	return &worktree.RefusalError{
		What:  e.relWorkTree() + " has commits that patches/ does not hold yet:",
		Items: lost,
		Hint:  fmt.Sprintf("run `nomadfork extract%s` first (or `nomadfork apply -force%s` to discard them), then drop again", e.lineArg(), e.lineArg()),
	}
}

// reapply applies the series again after a verb edited the patch file
// name, when the work tree holds the series as last applied or extracted,
// so that the next extract keeps the edit. Otherwise it says what to run.
func (e *env) reapply(ctx context.Context, name string) error {
	t := e.tree
	if !t.Exists() || !t.Repo.IsRepo(ctx) {
		return ctx.Err()
	}
	state, err := t.LoadState(ctx)
	if err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	dirty, err := t.Repo.Status(ctx)
	if err != nil {
		return err
	}
	base, err := t.Base(ctx)
	if err != nil {
		return err
	}
	patches, err := series.List(e.patches)
	if err != nil {
		return err
	}
	if head != "" && base != "" && head != state.Applied && len(dirty) == 0 {
		// Not recorded as applied, but perhaps it is (an interrupted
		// apply got that far): nothing is lost by applying then.
		lost, err := t.Unexported(ctx, patches)
		if err != nil {
			return err
		}
		if len(lost) == 0 {
			state.Applied = head
		}
	}
	if head == "" || base == "" || head != state.Applied || len(dirty) > 0 {
		fmt.Fprintf(e.stdout, "note: %s does not hold the series as last applied, so %s is not applied there yet; run `nomadfork apply%s` before the next extract (until then extract refuses to overwrite %s)\n",
			e.relWorkTree(), name, e.lineArg(), name)
		return nil
	}
	if err := t.Apply(ctx, base, patches, worktree.ApplyOptions{}); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "applied the edited %s to %s, so extract keeps it\n", name, e.relWorkTree())
	return nil
}

// dropVerified drops the patch a stopped rebase of the line conflicts at,
// once its own tests prove that the rebase's target carries it.
func dropVerified(ctx context.Context, e *env, name, pr string) error {
	if err := e.useRebasingLine(ctx); err != nil {
		return err
	}
	e.rebasing = e.line.Name
	r := e.rebaser()
	target, err := r.Target(ctx)
	if err != nil {
		if errors.Is(err, rebase.ErrNoRebase) {
			return fmt.Errorf("drop -verify drops the patch a rebase stopped at, and no rebase of line %s is in progress: start one with `nomadfork rebase -onto <version>`", e.line.Name)
		}
		return err
	}
	patches, err := series.List(e.patchesOfRebase(ctx))
	if err != nil {
		return err
	}
	targetLine, err := e.layout.At(target.Version())
	if err != nil {
		return err
	}
	o := e.harnessOptions(target, "drop-verify", false)
	o.Plain = filepath.Join(targetLine.Baselines, "client-"+target.Version()+".tsv")
	prove := func(ctx context.Context, base string, p series.Patch) (string, error) {
		return harness.ProveUpstream(ctx, o, base, p)
	}
	rep, err := r.DropProven(ctx, name, pr, prove, patches)
	if err != nil {
		return err
	}
	if rep.Stopped != nil {
		return e.stopError(rep.Stopped)
	}
	return e.finishRebase(rep)
}

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]", helpStatus)
	against := fs.String("against", "", "comma-separated upstream `versions` to try the series against (default: targets.json's newer than the pin)")
	allLines := fs.Bool("all-lines", false, "every maintained line, each against targets.json's versions newer than its pin")
	markdown := fs.Bool("markdown", false, "with -all-lines, print the status as Markdown, a table per line")
	readme := fs.Bool("doc", false, "with -all-lines, write that Markdown into docs/status.md between its status-per-line markers")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	if (*markdown || *readme) && !*allLines {
		return usageError{errors.New("-markdown and -doc go with -all-lines")}
	}
	if *allLines {
		if *against != "" || e.lineName != "" {
			return usageError{errors.New("-all-lines tries every line against targets.json's newer versions: no -against or -line")}
		}
		return e.statusAllLines(ctx, targets, *markdown, *readme)
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	versions, err := upstream.Versions(*against, targets, cur.Version())
	if err != nil {
		return usageError{err}
	}
	patches, err := series.Require(e.patches, false)
	if err != nil {
		return err
	}
	cols, err := rebase.Status(ctx, e.tree, cur, versions, targets, patches, filepath.Join(e.out, "status"), e.stdout)
	if err != nil {
		return err
	}
	rebase.Print(e.stdout, cols, patches, cur.Version())
	return nil
}

// statusAllLines tries every line's series against the versions
// targets.json names newer than the line's pin, and prints the report of
// each, or the Markdown of all (markdown), or writes that into docs/status.md
// (readme).
func (e *env) statusAllLines(ctx context.Context, targets upstream.Targets, markdown, readme bool) error {
	names, err := e.layout.Names()
	if err != nil {
		return err
	}
	var all []rebase.LineStatus
	for _, name := range names {
		ln, err := e.layout.Get(name)
		if err != nil {
			return err
		}
		e.setLine(ln)
		cur, err := e.loadPin()
		if err != nil {
			return err
		}
		patches, err := series.Require(e.patches, false)
		if err != nil {
			return err
		}
		st := rebase.LineStatus{Line: name, Default: ln.Default, Patches: patches}
		if versions, err := upstream.Versions("", targets, cur.Version()); err == nil {
			fmt.Fprintf(e.stdout, "==> line %s against %s\n", name, strings.Join(versions, ", "))
			st.Columns, err = rebase.Status(ctx, e.tree, cur, versions, targets, patches, filepath.Join(e.out, "status", name), e.stdout)
			if err != nil {
				return fmt.Errorf("line %s: %w", name, err)
			}
			if !markdown && !readme {
				rebase.Print(e.stdout, st.Columns, patches, cur.Version())
			}
		} else if !markdown && !readme {
			fmt.Fprintf(e.stdout, "line %s: no newer version to try (%s names none)\n", name, upstream.TargetsFile)
		}
		all = append(all, st)
	}
	generated := fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02"))
	doc := rebase.Markdown(all, generated)
	switch {
	case markdown:
		fmt.Fprint(e.stdout, doc)
	case readme:
		file := filepath.Join(e.root, "docs", "status.md")
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		out, err := rebase.ReplaceGenerated(string(data), doc)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := atomicfile.WriteFile(file, []byte(out), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote the status of %d line(s) into %s\n", len(all), file)
	}
	return nil
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "[-o dir] [-verify]", helpExport)
	out := fs.String("o", filepath.Join(e.out, "export"), "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	verify := fs.Bool("verify", false, "apply each PR's mbox with plain git am onto a fresh upstream tree and build it")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if strings.TrimSpace(*out) == "" {
		return usageError{errors.New("-o needs a directory")}
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "export", NoOp: true}); err != nil {
		return err
	}
	if ps, err := series.List(e.patches); err == nil && len(ps) == 0 {
		return fmt.Errorf("%w: %s holds no NNNN-subject.patch files, so there is nothing to export; restore them (`git checkout -- %s`)",
			series.ErrNoPatches, e.patches, e.relPatches())
	}
	patches, _, base, err := e.seriesAndBase(ctx, t, false)
	if err != nil {
		return err
	}
	res, err := export.Export(ctx, t.Repo, base, patches, *out, e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%d patches) and %d PR mboxes; branches %s* in nomad/ (one per PR)\n", res.Mbox, len(patches), len(res.PRs), export.BranchPrefix)
	if *verify {
		return export.VerifyPRs(ctx, t.Repo, base, res.PRs, filepath.Join(*out, "verify"), e.stdout)
	}
	return nil
}
