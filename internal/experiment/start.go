package experiment

import (
	"context"
	"io"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/worktree"
)

// A Start is what an experiment verb (bench, faults, scale) starts from,
// as the command gives it: the flags given, the selected line and its
// work tree, and where the verb writes.
type Start struct {
	// Given names the flags given on the command line.
	Given map[string]bool
	// Root is the repository; Out its scratch directory (out/), Sim the
	// sim module's; Changelog is CHANGELOG.md.
	Root, Out, Sim, Changelog string
	// Checkout is the selected line and its work tree (Line, Tree, Pin).
	worktree.Checkout
	// Command is the command line the reports name.
	Command        string
	Stdout, Stderr io.Writer
}

// Binaries builds, or reuses from dir, the nomad binaries of labels (the
// pinned version, the fork of the line's work tree, upstream versions)
// and of variants (Builder.Binaries); it needs the applied work tree.
func (s Start) Binaries(ctx context.Context, p *pin.Pin, dir string, labels []string, variants []Variant) ([]Binary, error) {
	if err := s.Tree.Require(ctx, worktree.Need{Base: true}); err != nil {
		return nil, err
	}
	b, err := NewBuilder(s.Tree, p, s.Root, s.Changelog, dir, s.Stdout)
	if err != nil {
		return nil, err
	}
	return b.Binaries(ctx, labels, variants)
}
