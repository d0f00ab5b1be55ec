package worktree

import (
	"context"
	"io"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// A Checkout is a maintained line and its work tree: what a verb works on
// once the command has selected the line. It is selected once and passed
// down whole.
type Checkout struct {
	Line line.Line
	Tree *Tree
}

// CheckoutOf returns the checkout of ln, its work tree writing to log.
func CheckoutOf(ln line.Line, log io.Writer) Checkout {
	return Checkout{Line: ln, Tree: &Tree{Dir: ln.WorkTree, Repo: &git.Repo{Dir: ln.WorkTree}, Log: log}}
}

// Pin loads the line's pin.
func (c Checkout) Pin() (*pin.Pin, error) { return pin.Load(c.Line.Pin) }

// FetchPinned imports the upstream the line's pin pins into the work
// tree's repository and returns the pin and that commit.
func (c Checkout) FetchPinned(ctx context.Context) (*pin.Pin, string, error) {
	p, err := c.Pin()
	if err != nil {
		return nil, "", err
	}
	base, err := c.Tree.Fetch(ctx, p)
	return p, base, err
}

// SeriesAndBase returns the line's series and the pinned upstream commit
// (FetchPinned): what check, apply and export start from. An empty or
// missing series is refused unless allowEmpty is set.
func (c Checkout) SeriesAndBase(ctx context.Context, allowEmpty bool) ([]series.Patch, *pin.Pin, string, error) {
	patches, err := series.Require(c.Line.Dir, allowEmpty)
	if err != nil {
		return nil, nil, "", err
	}
	p, base, err := c.FetchPinned(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	return patches, p, base, nil
}

// Unapplied says how the work tree differs from the line's series applied
// on the pinned upstream (Tree.Unapplied); "" when it does not.
func (c Checkout) Unapplied(ctx context.Context) (string, error) {
	patches, _, base, err := c.SeriesAndBase(ctx, true)
	if err != nil {
		return "", err
	}
	return c.Tree.Unapplied(ctx, base, patches)
}
