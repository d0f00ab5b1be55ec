package main

import (
	"context"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// harnessOptions are the files and directories of the harness.
func (e *env) harnessOptions(p *pin.Pin, scratch string, verbose bool) harness.Options {
	return harness.Options{
		Tree:    e.tree,
		Scratch: filepath.Join(e.out, scratch),
		Plain:   filepath.Join(e.line.Baselines, "client-"+p.Version()+".tsv"),
		Race:    filepath.Join(e.line.Baselines, "client-race-"+p.Version()+".tsv"),
		Revdeps: filepath.Join(e.line.Baselines, "revdeps-"+p.Version()+".tsv"),
		Series:  e.line.Dir,
		Module:  p.Module.Path,
		Version: p.Version(),
		Sim:     e.sim,
		SimMod:  filepath.Join(e.out, "sim", p.Version()),
		Verbose: verbose,
		Log:     e.stdout,
	}
}

// harnessOn requires the work tree and returns the harness options of the
// pinned version.
func (e *env) harnessOn(ctx context.Context, scratch string, verbose bool) (harness.Options, error) {
	if _, err := e.requireWorkTree(ctx); err != nil {
		return harness.Options{}, err
	}
	p, err := e.loadPin()
	if err != nil {
		return harness.Options{}, err
	}
	return e.harnessOptions(p, scratch, verbose), nil
}
