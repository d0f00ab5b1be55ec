package series

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
)

// Node is one patch of the dependency graph the Depends-On trailers
// declare.
type Node struct {
	Patch Patch
	// Declared are the numbers its Depends-On trailers name.
	Declared []int
	// Deps is the transitive closure of Declared, in series order: what
	// is applied, in this order, before the patch when it stands on its
	// own (its pull request).
	Deps []int
	// Files are the paths the patch changes.
	Files []string
}

// Standalone reports whether the patch needs no other patch.
func (n Node) Standalone() bool { return len(n.Deps) == 0 }

// Prefix reports whether the patch's dependencies are every earlier patch,
// so that checking it on its dependencies is checking the prefix.
func (n Node) Prefix() bool { return len(n.Deps) == n.Patch.Number-1 }

// On names what the patch stands on: "the bare base" or "the base + 0001
// + 0003".
func (n Node) On() string {
	if len(n.Deps) == 0 {
		return "the bare base"
	}
	return "the base + " + strings.Join(Numbers(n.Deps), " + ")
}

// Numbers formats patch numbers as NNNN.
func Numbers(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("%04d", n)
	}
	return out
}

// Graph reads the Depends-On trailers of the series (in List order).
// Trailers that do not name an earlier patch are ignored here; the check's
// lint reports them. A patch whose metadata does not parse is an error.
func Graph(patches []Patch) ([]Node, error) {
	nodes := make([]Node, len(patches))
	for i, p := range patches {
		md, err := p.Metadata()
		if err != nil {
			return nil, err
		}
		n := Node{Patch: p, Files: patchFiles(p.Data)}
		closure := map[int]bool{}
		for _, d := range md.DependsOn() {
			if d < 1 || d >= p.Number || d > i {
				continue
			}
			n.Declared = append(n.Declared, d)
			closure[d] = true
			for _, dd := range nodes[d-1].Deps {
				closure[dd] = true
			}
		}
		for d := range closure {
			n.Deps = append(n.Deps, d)
		}
		sort.Ints(n.Deps)
		nodes[i] = n
	}
	return nodes, nil
}

// WithDeps returns the patches of n's pull request in the order they
// apply: its dependencies, then the patch.
func (n Node) WithDeps(nodes []Node) []Patch {
	var out []Patch
	for _, d := range n.Deps {
		out = append(out, nodes[d-1].Patch)
	}
	return append(out, n.Patch)
}

// patchFiles returns the paths a format-patch file changes.
func patchFiles(data []byte) []string {
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "diff --git a/"); ok {
			if a, _, ok := strings.Cut(rest, " b/"); ok {
				files = append(files, a)
			}
		}
	}
	return files
}

// ApplyOn checks out base in the scratch tree wt and applies patches on
// it, in order, with plain `git am` (no three-way merge). When one does not
// apply it aborts the am and returns that patch with git's error (an
// *git.AmError); other errors come with a nil patch.
func ApplyOn(ctx context.Context, wt *git.Repo, base string, patches []Patch) (*Patch, error) {
	if _, err := wt.Run(ctx, "checkout", "--quiet", "--detach", base); err != nil {
		return nil, err
	}
	for i := range patches {
		if err := wt.Am(ctx, patches[i].Path, false); err != nil {
			var am *git.AmError
			if !errors.As(err, &am) {
				return nil, err
			}
			_ = wt.AmAbort(context.WithoutCancel(ctx))
			return &patches[i], err
		}
	}
	return nil, nil
}
