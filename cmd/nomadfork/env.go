package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/workspace"
)

// env is the workspace of one invocation (the repository and the line it
// selected) and its error stream.
type env struct {
	*workspace.Workspace
	stderr io.Writer
}

func newEnv(dir string, stdout, stderr io.Writer) (*env, error) {
	e := &env{stderr: stderr}
	w, err := workspace.New(dir, stdout, renderedOut{stdout, renderer{e}})
	if err != nil {
		return nil, err
	}
	e.Workspace = w
	if !w.Layout.IsRepo() {
		marker := filepath.Join(line.PatchesDir, line.DefaultFile)
		if dir != "" {
			return e, fmt.Errorf("%s not found in %s: pass -C the repository's top directory (the one holding patches/)", marker, dir)
		}
		return e, fmt.Errorf("%s not found: run nomadfork in the repository's top directory or pass -C", marker)
	}
	return e, nil
}

// renderedOut is an output the internal packages write their hints to
// (hint.Fprint): it renders them for the selected line.
type renderedOut struct {
	io.Writer
	renderer
}

// relWorkTree is the line's work tree relative to the repository, with a
// trailing slash: nomad/ or lines/<line>/nomad/.
func (e *env) relWorkTree() string {
	rel, err := filepath.Rel(e.Root, e.Line.WorkTree)
	if err != nil {
		return e.Line.WorkTree + "/"
	}
	return rel + "/"
}
