package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
	"golang.org/x/mod/semver"
)

func runDrop(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "drop", "<patch> -applied-upstream <version> [-pr <url>] | <patch> -verify -pr <url>")
	applied := fs.String("applied-upstream", "", "the upstream `version` that carries the change")
	pr := fs.String("pr", "", "the https `url` of the upstream pull request that carries it")
	verify := fs.Bool("verify", false, "while a rebase of the line is stopped at the patch: prove that the rebase's target carries it (its own tests pass there without its production changes, in the sandbox), drop it and go on with the rebase")
	// Accept the patch before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := cli.Parse(fs, args, 1); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 || name == "" {
		return usageError(errors.New("give one patch, by file name or number"))
	}
	if *pr != "" {
		if u, err := url.Parse(*pr); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" {
			return usageError(fmt.Errorf("-pr %q is not an https URL of a pull request", *pr))
		}
	}
	if *verify {
		if *pr == "" || *applied != "" {
			return usageError(errors.New("-verify takes -pr <url> and no -applied-upstream (the version is the rebase's target)"))
		}
		return dropVerified(ctx, e, name, *pr)
	}
	if err := e.useLine(); err != nil {
		return err
	}
	if !semver.IsValid(*applied) {
		return usageError(fmt.Errorf("-applied-upstream %q is not a version such as v1.6.0", *applied))
	}
	cur, err := e.loadPin()
	if err != nil {
		return err
	}
	d, err := rebase.DropInTree(ctx, e.tree, cur, e.line.Dir, name, *applied, *pr)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: Upstream-Status: applied %s; the next rebase onto %s or later drops it\n", d.Patch.Name, *applied, *applied)
	switch {
	case d.Applied:
		fmt.Fprintf(e.stdout, "applied the edited %s to %s, so extract keeps it\n", d.Patch.Name, e.relWorkTree())
	case d.Tree:
		fmt.Fprintf(e.stdout, "note: %s does not hold the series as last applied, so %s is not applied there yet; run %s before the next extract (until then extract refuses to overwrite %s)\n",
			e.relWorkTree(), d.Patch.Name, e.run("apply"), d.Patch.Name)
	}
	return nil
}

// dropVerified drops the patch a stopped rebase of the line conflicts at,
// once its own tests prove that the rebase's target carries it.
func dropVerified(ctx context.Context, e *env, name, pr string) error {
	if err := e.useRebasingLine(ctx); err != nil {
		return err
	}
	rep, err := e.session().DropProven(ctx, name, pr, func(target *pin.Pin, targetLine line.Line) rebase.Prover {
		o := e.harnessOptions(target, "drop-verify", false)
		o.Plain = harness.PlainBaseline(targetLine.Baselines, target.Version())
		return func(ctx context.Context, base string, p series.Patch) (string, error) {
			return harness.ProveUpstream(ctx, o, base, p)
		}
	})
	if err != nil {
		return err
	}
	if rep.Stopped != nil {
		return rep.Stopped.StopError()
	}
	return e.finishRebase(rep)
}

func init() {
	register(command{Name: "drop", Summary: "record that upstream carries a patch (Upstream-Status: applied v)", Run: runDrop, Lock: true})
}
