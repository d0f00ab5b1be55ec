package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/nomad-client-fork/nomad-client-fork/internal/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/check"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/worktree"
)

func runApply(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "apply", "[-force] [-continue]")
	force := fs.Bool("force", false, "discard uncommitted changes, unexported commits and a stopped apply in nomad/")
	cont := fs.Bool("continue", false, "resume an apply that stopped at a conflict, after resolving and `git add`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *force && *cont {
		return usageError{errors.New("-force and -continue exclude each other")}
	}
	t, patches, p, base, err := e.seriesAndBase(ctx)
	if err != nil {
		return err
	}
	if err := t.Apply(ctx, base, patches, worktree.ApplyOptions{Force: *force, Continue: *cont}); err != nil {
		return err
	}
	head, err := t.Head(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "nomad/ is upstream %s plus %d patch(es), HEAD %s\n", p.Version(), len(patches), head)
	return nil
}

func runExtract(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "extract", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.tree()
	if err != nil {
		return err
	}
	changes, err := t.Extract(ctx, e.patches)
	if err != nil {
		return err
	}
	for _, c := range changes {
		fmt.Fprintf(e.stdout, "%-9s patches/%s\n", c.Action, c.Name)
	}
	if len(changes) == 0 {
		fmt.Fprintln(e.stdout, "the series is empty: nomad/ has no commits after the upstream base")
	}
	return nil
}

func runCheck(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "check", "[-no-build] [-tests [-v]]")
	noBuild := fs.Bool("no-build", false, "skip building and vetting every prefix of the series and every patch on its dependencies")
	tests := fs.Bool("tests", false, "also run each patch's own tests (the Test funcs its _test.go hunks add or change) on the base plus its dependencies, in the sandbox (a nomad build per patch: not in CI)")
	verbose := fs.Bool("v", false, "with -tests, print every test's output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, patches, p, base, err := e.seriesAndBase(ctx)
	if err != nil {
		return err
	}
	err = check.Series(ctx, patches, check.Options{
		Repo:    t.Repo,
		Base:    base,
		Scratch: filepath.Join(e.out, "check"),
		Build:   !*noBuild,
		Pinned:  p.Version(),
		Log:     e.stdout,
	})
	if err != nil {
		return err
	}
	if *tests {
		if err := checkOwnTests(ctx, e, t, p, base, patches, *verbose); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "check: %d patch(es) ok\n", len(patches))
	return nil
}

func runBuild(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "build", "[-o file]")
	out := fs.String("o", filepath.Join(e.bin, "nomad"), "write the binary to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	release, err := build.ForkRelease(e.log, p.Version())
	if err != nil {
		return err
	}
	stamp, err := build.StampOf(ctx, t.Repo, release)
	if err != nil {
		return err
	}
	err = progress.Step(e.stdout, fmt.Sprintf("building %s (Nomad %s+%s, revision %s)", *out, p.Version(), release, stamp.Revision), func() error {
		return build.Nomad(ctx, t.Dir, *out, stamp)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "built %s; `%s version` prints the version\n", *out, *out)
	return nil
}

func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintln(e.stderr, "usage: nomadfork sandbox -- command [args...]\n\n"+
			"Runs the command in new network, mount and PID namespaces: only lo and a veth pair\n"+
			"with a default route via 192.0.2.254 that leads nowhere; 169.254.0.0/16 and the\n"+
			"private ranges unreachable; the machine's cgroups hidden; every process killed\n"+
			"when the command exits. Needs root, unshare (util-linux) and ip (iproute2).")
		if len(args) == 0 {
			return usageError{errors.New("no command given")}
		}
		return nil
	}
	err := sandbox.Run("", nil, args...)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitCode(exit.ExitCode())
	}
	return err
}
