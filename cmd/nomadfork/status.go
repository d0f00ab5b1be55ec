package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/status"
)

func runStatus(ctx context.Context, e *env, args []string) error {
	var o status.Options
	if err := parseOptions(e, "status", "[-against v1.5.5,v1.5.6,v1.6.1] | -all-lines [-markdown | -doc]", args, &o, statusFlags); err != nil {
		return err
	}
	o.LineGiven = e.LineName != ""
	return status.Run(ctx, o, e.Checkout, e.Layout, filepath.Join(e.Out, "status"), e.Stdout, fmt.Sprintf("by `nomadfork status -all-lines -doc` on %s", time.Now().UTC().Format("2006-01-02")))
}

// statusFlags declares status's flags on fs, into o.
func statusFlags(fs *flag.FlagSet, o *status.Options) {
	fs.StringVar(&o.Against, "against", "", "comma-separated upstream `versions` to try the series against (default: targets.json's newer than the pin)")
	fs.BoolVar(&o.AllLines, "all-lines", false, "every maintained line, each against targets.json's versions newer than its pin")
	fs.BoolVar(&o.Markdown, "markdown", false, "with -all-lines, print the status as Markdown, a table per line")
	fs.BoolVar(&o.Doc, "doc", false, "with -all-lines, write that Markdown into docs/status.md between its status-per-line markers")
}

func init() { register(command{Name: "status", Run: runStatus, Lock: true}) }
