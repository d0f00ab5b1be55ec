package experiment

import (
	"context"
	"io"
	"os"

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

// Run is what every experiment verb does, in order: with from (its
// -from) it redraws the report saved there with redraw, whatever the pin
// says now; else it runs run with the line's pin and this executable,
// which the runs start again as their hidden verbs.
func Run(ctx context.Context, s Start, from string, redraw func(w io.Writer, path string) error, run func(ctx context.Context, p *pin.Pin, self string) error) error {
	if from != "" {
		return redraw(s.Stdout, from)
	}
	p, err := s.Pin()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return run(ctx, p, self)
}
