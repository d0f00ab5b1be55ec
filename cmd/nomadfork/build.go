package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "build", "[-o file] [-check-ui] [-tree dir -test -metadata m]")
	out := fs.String("o", filepath.Join(e.bin, "nomad"), "write the binary to `file`")
	checkUI := fs.Bool("check-ui", false, "then start a dev agent of the binary in the sandbox and check that /ui/ serves the web UI")
	tree := fs.String("tree", "", "build the nomad tree in `dir` (such as a bench variant's linked work tree, scripts/build-variant.sh) instead of the line's work tree")
	testProfile := fs.Bool("test", false, "build like the bench's binaries: the release flags without the release tag, which keeps upstream's mock_driver")
	metadata := fs.String("metadata", "", "the version metadata (such as fork.seed) instead of the fork release from CHANGELOG.md")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	repo := e.tree.Repo
	if *tree != "" {
		abs, err := filepath.Abs(*tree)
		if err != nil {
			return err
		}
		repo = &git.Repo{Dir: abs}
	} else if err := e.tree.Require(ctx, worktree.Need{Verb: "build", Base: true}); err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	profile := build.Release
	if *testProfile {
		profile = build.Test
	}
	job := build.Job{Repo: repo, Out: *out, Upstream: p.Version(), Metadata: *metadata, Changelog: e.log, Profile: profile, Log: e.stdout}
	if err := job.Run(ctx); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "built %s (%s); `nomadfork sandbox -- %s version` prints the version (run Nomad code only in the sandbox)\n", *out, profile.ID(), *out)
	if !*checkUI {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	err = progress.Step(e.stdout, "checking that "+*out+" serves the web UI at /ui/ (dev agent in the sandbox)", func() error {
		return release.CheckUI(ctx, self, abs, filepath.Join(e.out, "ui-check"))
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "ui check: %s serves the web UI at /ui/\n", *out)
	return nil
}

func init() {
	register(command{Name: "build", Summary: "build bin/nomad from nomad/ like upstream's release, stamped with the fork release", Run: runBuild})
}
