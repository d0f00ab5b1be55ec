package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runRelease(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "release", "[-verify]")
	verify := fs.Bool("verify", false, "rebuild the release, compare its SHA256SUMS with dist/'s and check the artifacts")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	t := e.tree
	if err := t.Require(ctx, worktree.Need{Verb: "release", Base: true}); err != nil {
		return err
	}
	o, err := release.LineOptions(t.Repo, e.line.Pin, e.line.Dir, e.log, filepath.Join(e.root, "dist"), filepath.Join(e.out, "release"), e.stdout)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(e.root, o.Dir())
	if !*verify {
		r, err := release.Make(ctx, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\nrelease %s in %s/ (toolchain %s):\n%s", r.Version, rel, build.Toolchain, r.Sums)
		fmt.Fprintf(e.stdout, "%s rebuilds it and checks it; docs/release.md says how to install it\n", e.run("release", "-verify"))
		return nil
	}
	sums, err := release.Verify(ctx, o)
	if errors.Is(err, release.ErrNoRelease) {
		return fmt.Errorf("%w (make release%s)", err, e.makeLine())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nrelease -verify: the rebuild of %s has the same SHA256SUMS:\n%s", rel, sums)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	results, err := release.Check(ctx, o, self, filepath.Join(e.out, "release", "check"), e.stdout)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(e.stdout, "skipped  %s: %s\n", r.Name, r.Skipped)
			continue
		}
		fmt.Fprintf(e.stdout, "ok       %s\n", r.Name)
	}
	return nil
}

// makeLine is " LINE=<name>" for another line than the default one.
func (e *env) makeLine() string {
	if e.line.Name != "" && !e.line.Default {
		return " LINE=" + e.line.Name
	}
	return ""
}

func init() {
	register(command{Name: "release", Summary: "dist/<version>+fork.N/: zips, .debs, SHA256SUMS, RELEASE.md for amd64 and arm64 (-verify: rebuild and check)", Run: runRelease})
	register(command{Name: release.UICheckArg, Summary: "the web UI check, inside the sandbox",
		Entry: release.UICheckMain})
}
