package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/release"
)

func runRelease(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "release", "[-verify]")
	verify := fs.Bool("verify", false, "rebuild the release, compare its SHA256SUMS with dist/'s and check the artifacts")
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	err := release.Run(ctx, e.Checkout, *verify, e.Root, e.Changelog, filepath.Join(e.Out, "release"), e.Log)
	if errors.Is(err, release.ErrNoRelease) {
		mk := "make release"
		if e.Line.Name != "" && !e.Line.Default {
			mk += " LINE=" + e.Line.Name
		}
		return fmt.Errorf("%w (%s)", err, mk)
	}
	return err
}

func init() {
	register(command{Name: "release", Run: runRelease, Lock: true}, command{Name: release.UICheckArg, Entry: release.UICheckMain})
}
