package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/export"
)

func runExport(ctx context.Context, e *env, args []string) error {
	o := export.Options{Out: filepath.Join(e.Out, "export"), Scratch: filepath.Join(e.Out, "export-scratch")}
	if err := parseOptions(e, "export", "[-o dir] [-verify [-no-build]]", args, &o, exportFlags); err != nil {
		return err
	}
	return export.Run(ctx, e.Checkout, o)
}

// exportFlags declares export's flags on fs, into o; -o defaults to o.Out.
func exportFlags(fs *flag.FlagSet, o *export.Options) {
	fs.StringVar(&o.Out, "o", o.Out, "write the mboxes to `dir`: NNNN-subject.mbox per PR (the patch and its declared dependencies) and series.mbox")
	fs.BoolVar(&o.Verify, "verify", false, "apply each PR's mbox with plain git am onto a fresh upstream tree and build it")
	fs.BoolVar(&o.NoBuild, "no-build", false, "with -verify, apply only (check builds each patch on its dependencies); make test does so")
}

func init() { register(command{Name: "export", Run: runExport, Lock: true}) }
