package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/export"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func (e *env) rebaser() *rebase.Rebaser {
	return &rebase.Rebaser{Tree: e.tree, Log: e.stdout,
		Files: rebase.Files{Pin: e.pinFile, Patches: e.patches, Changelog: e.log}}
}

const (
	helpRebase = `Moves the series onto a newer upstream: pins and imports the target, then
applies each patch (cleanly, by 3-way merge, or dropped when upstream carries
it). At a conflict it stops: resolve, git add, then rebase -continue, or
rebase -abort. The pin, patches/ and CHANGELOG.md change only when it
completes.`
	helpDrop = `Records that upstream carries a patch in a different form (Upstream-Status:
applied <version>, Applied-Upstream: <url>); the next rebase onto that
version or later drops it. The version must be served and newer than the pin.`
	helpStatus = `Read-only: tries the series against newer upstream versions in scratch
trees and prints a table, a row per patch. Without -against: the versions in
targets.json newer than the pin.`
	helpExport = `Writes upstream-ready commits (fork trailers removed, a .changelog entry
each): per PR (a patch and its Depends-On patches) a branch
export/NNNN-subject in nomad/ and an mbox; the whole series as series.mbox.`
)

func runRebase(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "rebase", "-onto <version> | -continue | -abort", helpRebase)
	onto := fs.String("onto", "", "move the series onto upstream `version`, such as v1.6.1")
	cont := fs.Bool("continue", false, "go on after resolving a conflict and staging it with 'git add', or after an interruption")
	abort := fs.Bool("abort", false, "undo the rebase: restore the work tree; pin, patches/ and CHANGELOG.md were never touched")
	nested := upstream.NestedFlag{}
	fs.Var(nested, "nested", "use `path@version` for a nested module (repeatable); default: targets.json, else the tag commit's pseudo-version")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if count(*onto != "", *cont, *abort) != 1 {
		return usageError{errors.New("give exactly one of -onto <version>, -continue or -abort")}
	}
	r := e.rebaser()
	if *abort {
		if err := r.Abort(ctx); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "rebase aborted: work tree, pin and patches/ are as before")
		return nil
	}
	patches, err := series.List(e.patches)
	if err != nil {
		return err
	}
	var rep *rebase.Report
	if *cont {
		rep, err = r.Continue(ctx, patches)
	} else if !semver.IsValid(*onto) {
		return usageError{fmt.Errorf("-onto %q is not a version such as v1.6.1", *onto)}
	} else {
		rep, err = r.Onto(ctx, *onto, filepath.Join(e.root, upstream.TargetsFile), nested, patches)
	}
	if err != nil {
		return err
	}
	if rep.Stopped != nil {
		return rep.Stopped.StopError()
	}
	fmt.Fprintln(e.stdout, rep.Summary())
	fmt.Fprintf(e.stdout, "updated %s, patches/ and CHANGELOG.md; run `nomadfork check`, then `nomadfork baseline` for %s before `nomadfork test`\n", pin.DefaultFile, rep.To)
	return nil
}

func runDrop(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>]", helpDrop)
	applied := fs.String("applied-upstream", "", "the upstream `version` that carries the change")
	pr := fs.String("pr", "", "the https `url` of the upstream pull request that carries it")
	// Accept the patch before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 || name == "" {
		return usageError{errors.New("give one patch, by file name or number")}
	}
	if !semver.IsValid(*applied) {
		return usageError{fmt.Errorf("-applied-upstream %q is not a version such as v1.6.0", *applied)}
	}
	if *pr != "" {
		if u, err := url.Parse(*pr); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" {
			return usageError{fmt.Errorf("-pr %q is not an https URL of a pull request", *pr)}
		}
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "drop", NoOp: true}); err != nil {
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
	return nil
}

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "status", "[-against v1.5.5,v1.5.6,v1.6.1]", helpStatus)
	against := fs.String("against", "", "comma-separated upstream `versions` to try the series against (default: targets.json's newer than the pin)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
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
	t := e.tree
	cols, err := rebase.Status(ctx, t, cur, versions, targets, patches, filepath.Join(e.out, "status"), e.stdout)
	if err != nil {
		return err
	}
	rebase.Print(e.stdout, cols, patches, cur.Version())
	return nil
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "[-o dir] [-verify]", helpExport)
	out := fs.String("o", filepath.Join(e.out, "export"), "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	verify := fs.Bool("verify", false, "apply each PR's mbox with plain git am onto a fresh upstream tree and build it")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "export", NoOp: true}); err != nil {
		return err
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
