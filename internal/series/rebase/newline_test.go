package rebase

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// Prepare refuses, with an error of its own type and before copying
// anything, a line that exists, one not newer than the line it is made
// from, and one whose work tree a stopped or failed making left behind.
func TestNewLinePrepareRefuses(t *testing.T) {
	root := t.TempDir()
	patches := filepath.Join(root, line.PatchesDir)
	for _, name := range []string{"v1.0.0", "v1.2.0"} {
		if err := os.MkdirAll(filepath.Join(patches, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(patches, name, pin.DefaultFile), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(patches, line.DefaultFile), []byte("v1.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	layout := line.Layout{Root: root}
	from, err := layout.At("v1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	left, err := layout.At("v1.3.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(left.WorkTree, 0o755); err != nil {
		t.Fatal(err)
	}
	// Tree is nil: a refusal must come before the copy.
	n := NewLine{Layout: layout, From: from}
	ctx := context.Background()

	_, err = n.Prepare(ctx, "v1.2.0")
	var exists *LineExistsError
	if !errors.As(err, &exists) || exists.Line != "v1.2.0" {
		t.Errorf("Prepare(v1.2.0), a line already: %v, want a *LineExistsError", err)
	}
	_, err = n.Prepare(ctx, "v0.9.0")
	var notNewer *NotNewerError
	if !errors.As(err, &notNewer) || notNewer.Version != "v0.9.0" || notNewer.From != "v1.0.0" {
		t.Errorf("Prepare(v0.9.0), older: %v, want a *NotNewerError", err)
	}
	_, err = n.Prepare(ctx, "v1.3.0")
	var wt *WorkTreeLeftError
	if !errors.As(err, &wt) || wt.WorkTree != left.WorkTree {
		t.Errorf("Prepare(v1.3.0), its work tree left behind: %v, want a *WorkTreeLeftError naming %s", err, left.WorkTree)
	}
}
