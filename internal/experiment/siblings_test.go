package experiment

import (
	"go/build"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSiblings keeps bench, faults and scale siblings on this frame: none
// of them, nor the frame, imports another of them (tests included).
func TestSiblings(t *testing.T) {
	const internal = "github.com/nomad-client-fork/nomad-client-fork/internal/"
	siblings := []string{"bench", "faults", "scale"}
	for _, dir := range append([]string{".", "cluster"}, siblings...) {
		src := dir
		if slices.Contains(siblings, dir) {
			src = filepath.Join("..", dir)
		}
		pkg, err := build.ImportDir(src, 0)
		if err != nil {
			t.Fatal(err)
		}
		imports := append(append(append([]string(nil), pkg.Imports...), pkg.TestImports...), pkg.XTestImports...)
		for _, imp := range imports {
			rest, ok := strings.CutPrefix(imp, internal)
			if !ok {
				continue
			}
			if top := strings.Split(rest, "/")[0]; slices.Contains(siblings, top) && top != path.Base(dir) {
				t.Errorf("%s imports %s: bench, faults and scale share package experiment, not each other", pkg.Name, imp)
			}
		}
	}
}
