package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/export"
	"github.com/nomad-client-fork/nomad-client-fork/internal/metadata"
	"github.com/nomad-client-fork/nomad-client-fork/internal/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/rebase"
	"github.com/nomad-client-fork/nomad-client-fork/internal/upstream"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

// nestedFlag collects -nested path@version overrides.
type nestedFlag map[string]string

func (n nestedFlag) String() string { return "" }

func (n nestedFlag) Set(s string) error {
	path, version, ok := strings.Cut(s, "@")
	if !ok || path == "" || version == "" {
		return fmt.Errorf("want path@version, got %q", s)
	}
	n[path] = version
	return nil
}

func (e *env) rebaser() (*rebase.Rebaser, error) {
	t, err := e.tree()
	if err != nil {
		return nil, err
	}
	return &rebase.Rebaser{
		Tree:  t,
		Files: rebase.Files{Pin: e.pinFile, Patches: e.patches, Changelog: e.log},
		Log:   e.stdout,
	}, nil
}

func runRebase(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "rebase", "-onto <version> | -continue | -abort")
	onto := fs.String("onto", "", "move the series onto upstream `version`, such as v1.6.1")
	cont := fs.Bool("continue", false, "go on after resolving a conflict and `git add`")
	abort := fs.Bool("abort", false, "undo the rebase: restore the work tree; pin and patches/ were never touched")
	nested := nestedFlag{}
	fs.Var(nested, "nested", "use `path@version` for a nested module (repeatable); default: targets.json, else the tag commit's pseudo-version")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n := 0
	for _, set := range []bool{*onto != "", *cont, *abort} {
		if set {
			n++
		}
	}
	if n != 1 {
		return usageError{errors.New("give exactly one of -onto <version>, -continue or -abort")}
	}
	r, err := e.rebaser()
	if err != nil {
		return err
	}
	if *abort {
		if err := r.Abort(ctx); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "rebase aborted: work tree, pin and patches/ are as before")
		return nil
	}
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	var rep *rebase.Report
	if *cont {
		rep, err = r.Continue(ctx, patches)
	} else {
		if !semver.IsValid(*onto) {
			return usageError{fmt.Errorf("-onto %q is not a version such as v1.6.1", *onto)}
		}
		var cur *pin.Pin
		cur, err = e.loadPin()
		if err != nil {
			return err
		}
		if semver.Compare(*onto, cur.Version()) <= 0 {
			return fmt.Errorf("-onto %s is not newer than the pinned %s", *onto, cur.Version())
		}
		targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
		if err != nil {
			return err
		}
		next, mods, _, err := upstream.Resolve(ctx, cur, *onto, targets, nested, false, e.stdout)
		if err != nil {
			return err
		}
		rep, err = r.Start(ctx, cur, next, mods, patches)
	}
	if err != nil {
		return err
	}
	if rep.Stopped != nil {
		c := &worktree.ConflictError{Patch: rep.Stopped.Patch, Files: rep.Stopped.Files, Hunks: rep.Stopped.Hunks,
			Resume: "resolve the conflicts in nomad/, `git add` the files, then run `nomadfork rebase -continue`;\n" +
				"or run `nomadfork rebase -abort` to restore everything as it was"}
		return c
	}
	fmt.Fprintln(e.stdout, rep.Summary())
	fmt.Fprintf(e.stdout, "updated %s, patches/ and CHANGELOG.md; run `nomadfork check`, then `nomadfork baseline` for %s before `nomadfork test`\n", pin.DefaultFile, rep.To)
	return nil
}

func runDrop(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>]")
	applied := fs.String("applied-upstream", "", "the upstream `version` that carries the change")
	pr := fs.String("pr", "", "the upstream pull request `url` that carries it")
	// Accept the patch before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
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
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	var path string
	for _, p := range patches {
		if p.Name == name || strings.TrimSuffix(p.Name, ".patch") == name || fmt.Sprintf("%04d", p.Number) == name {
			path = p.Path
		}
	}
	if path == "" {
		return fmt.Errorf("no patch %q in patches/", name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	data, err = metadata.SetTrailer(data, "Upstream-Status", "applied "+*applied)
	if err == nil && *pr != "" {
		data, err = metadata.SetTrailer(data, "Applied-Upstream", *pr)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	md, err := metadata.Parse(data)
	if err != nil {
		return err
	}
	if errs := md.Lint(); len(errs) > 0 {
		return fmt.Errorf("%s would be invalid: %v", filepath.Base(path), errs[0])
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: Upstream-Status: applied %s; the next rebase onto %s or later drops it\n", filepath.Base(path), *applied, *applied)
	return nil
}

func runStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "status", "-against v1.5.5,v1.5.6,v1.6.1")
	against := fs.String("against", "", "comma-separated upstream `versions` to try the series against")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var versions []string
	for _, v := range strings.Split(*against, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		if !semver.IsValid(v) {
			return usageError{fmt.Errorf("%q is not a version such as v1.6.1", v)}
		}
		versions = append(versions, v)
	}
	if len(versions) == 0 {
		return usageError{errors.New("-against needs at least one version")}
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	patches, err := e.listPatches()
	if err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	cols, err := rebase.Status(ctx, t, cur, versions, targets, patches, filepath.Join(e.out, "status"), e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nseries (%d patches on %s) against newer upstream versions:\n\n%s\n", len(patches), cur.Version(), rebase.Table(cols, patches))
	for _, c := range cols {
		for _, o := range c.Outcomes {
			if o.Kind == rebase.Conflict || o.Kind == rebase.Upstream {
				fmt.Fprintf(e.stdout, "%s %s: %s", c.Version, o.Patch, o.Cell())
				if len(o.Hunks) > 0 {
					fmt.Fprintf(e.stdout, "; hunks %s", strings.Join(o.Hunks, ", "))
				}
				if o.Kind == rebase.Upstream {
					fmt.Fprintf(e.stdout, "; %s", o.Detail)
				}
				fmt.Fprintln(e.stdout)
			}
		}
	}
	return nil
}

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "[-o dir] [-verify]")
	out := fs.String("o", filepath.Join(e.out, "export"), "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	verify := fs.Bool("verify", false, "apply each PR's mbox with plain `git am` onto a fresh upstream tree and build it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, patches, _, base, err := e.seriesAndBase(ctx)
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
