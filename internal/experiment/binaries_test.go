package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A variant whose path is no executable stops Binaries before any label is
// built: the zero Builder here could build nothing, so reaching a build
// fails the test.
func TestBinariesChecksVariantsFirst(t *testing.T) {
	var b Builder
	missing := filepath.Join(t.TempDir(), "nomad")
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Binaries began a build before checking the variants: %v", r)
		}
	}()
	_, err := b.Binaries(context.Background(), []string{ForkLabel}, []Variant{{Name: "seed", Path: missing}})
	if err == nil || !strings.HasPrefix(err.Error(), "variant seed:") {
		t.Fatalf("Binaries: %v; want the variant's error", err)
	}
}
