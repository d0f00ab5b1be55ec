package main

import (
	"context"
	"flag"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// experimentCommand is the command of the experiment verb name (bench,
// faults, scale): its flags are C's, with -o defaulting to out/<name>;
// run, the engine's Run, starts from the selected line.
func experimentCommand[C any, PC interface {
	*C
	Flags(fs *flag.FlagSet, out string)
}](name, synopsis string, run func(context.Context, experiment.Start, C) error) command {
	return command{Name: name, Run: func(ctx context.Context, e *env, args []string) error {
		var cfg C
		fs := newFlags(e, name, synopsis)
		PC(&cfg).Flags(fs, filepath.Join(e.Out, name))
		if err := e.parse(fs, args, 0); err != nil {
			return err
		}
		return run(ctx, e.Experiment(experiment.Given(fs), strings.TrimSpace("nomadfork "+name+" "+strings.Join(args, " ")), e.stderr), cfg)
	}}
}
