package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

func runBuild(ctx context.Context, e *env, args []string) error {
	o := build.Options{Out: filepath.Join(e.Bin, "nomad")}
	if err := parseOptions(e, "build", "[-o file] [-check-ui] [-tree dir -test -metadata m]", args, &o, buildFlags); err != nil {
		return err
	}
	if o.Tree == "" {
		// The line's work tree: no apply or rebase may change it
		// half-way through the build.
		release, err := e.lock("build")
		if err != nil {
			return err
		}
		defer release()
	}
	return release.Build(ctx, e.Checkout, o, e.Changelog, filepath.Join(e.Out, "ui-check"), e.Log)
}

// buildFlags declares build's flags on fs, into o; -o defaults to o.Out.
func buildFlags(fs *flag.FlagSet, o *build.Options) {
	fs.StringVar(&o.Out, "o", o.Out, "write the binary to `file`")
	fs.BoolVar(&o.CheckUI, "check-ui", false, "then start a dev agent of the binary in the sandbox and check that /ui/ serves the web UI")
	fs.StringVar(&o.Tree, "tree", "", "build the nomad tree in `dir` (such as a bench variant's linked work tree, scripts/build-variant.sh) instead of the line's work tree")
	fs.BoolVar(&o.Test, "test", false, "build like the bench's binaries: the release flags without the release tag, which keeps upstream's mock_driver")
	fs.StringVar(&o.Metadata, "metadata", "", "the version metadata (such as fork.seed) instead of the fork release from CHANGELOG.md")
}

func init() { register(command{Name: "build", Run: runBuild}) }
