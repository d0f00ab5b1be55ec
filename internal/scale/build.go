package scale

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
)

// Build is a simulator build: sim/cmd/nodesim compiled against a Nomad
// work tree (the fork's, or a variant's linked work tree).
type Build struct {
	Label string `json:"label"`
	// Tree is the Nomad work tree the simulator was built against.
	Tree string `json:"tree"`
	// Commit is the tree's HEAD, with +CHANGES when it has uncommitted
	// changes (a variant's diff).
	Commit string `json:"commit,omitempty"`
	Path   string `json:"path"`
}

// BuildSimulators builds the simulator of simDir against the fork's work
// tree forkTree (label fork) and each variant's work tree, into
// out/bin/<label>/nodesim.
func BuildSimulators(ctx context.Context, simDir, forkTree string, variants []experiment.Variant, out string, log io.Writer) ([]Build, error) {
	trees := append([]experiment.Variant{{Name: experiment.ForkLabel, Path: forkTree}}, variants...)
	var builds []Build
	for _, v := range trees {
		b := Build{Label: v.Name, Tree: v.Path, Path: filepath.Join(out, "bin", v.Name, "nodesim")}
		b.Commit = treeCommit(ctx, v.Path)
		if err := BuildNodesim(ctx, simDir, v.Path, b.Path, log); err != nil {
			return nil, fmt.Errorf("simulator %s: %w", v.Name, err)
		}
		builds = append(builds, b)
	}
	return builds, nil
}

// treeCommit describes a work tree's HEAD, +CHANGES when it has uncommitted
// changes; "" when it is not a git work tree.
func treeCommit(ctx context.Context, dir string) string {
	r := &git.Repo{Dir: dir}
	head, err := r.ResolveCommit(ctx, "HEAD")
	if err != nil {
		return ""
	}
	if dirty, err := r.Status(ctx); err == nil && len(dirty) > 0 {
		head += "+CHANGES"
	}
	return head
}

// nomadModules are the modules the simulator takes from the work tree.
var nomadModules = []struct{ path, dir string }{
	{"github.com/hashicorp/nomad", "."},
	{"github.com/hashicorp/nomad/api", "api"},
}

// BuildNodesim builds simDir's cmd/nodesim against the Nomad work tree
// tree into out (out.mod and out.sum next to it are the module files of the
// build: sim's own with the Nomad modules replaced by tree's). It builds
// outside the sandbox: compiling runs no Nomad code.
func BuildNodesim(ctx context.Context, simDir, tree, out string, log io.Writer) error {
	tree, err := filepath.Abs(tree)
	if err != nil {
		return err
	}
	// go build runs in simDir.
	if out, err = filepath.Abs(out); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(tree, "go.mod")); err != nil {
		return fmt.Errorf("no Nomad work tree at %s: %w", tree, err)
	}
	data, err := os.ReadFile(filepath.Join(simDir, "go.mod"))
	if err != nil {
		return err
	}
	mod, err := RetargetModfile(data, tree)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(simDir, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(out+".mod", mod, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(out+".sum", sum, 0o644); err != nil {
		return err
	}
	return progress.Step(log, fmt.Sprintf("building the simulator against %s into %s", tree, out), func() error {
		_, err := gocmd.Cmd{Dir: simDir, Env: append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false")}.CombinedOutput(ctx, "build", "-modfile", out+".mod", "-trimpath", "-o", out, "./cmd/nodesim")
		return err
	})
}

// RetargetModfile returns sim's go.mod with the Nomad modules replaced by
// the work tree tree's.
func RetargetModfile(data []byte, tree string) ([]byte, error) {
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return nil, err
	}
	for _, m := range nomadModules {
		if err := f.DropReplace(m.path, ""); err != nil {
			return nil, err
		}
		if err := f.AddReplace(m.path, "", filepath.Join(tree, m.dir), ""); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	return f.Format()
}
