// Command nomadfork maintains nomad-client-fork: it materializes the pinned
// upstream Nomad as a git work tree, applies the patch series on top,
// extracts edits back into patch files, checks the series, builds the fork's
// nomad binary and runs upstream's client tests on it inside a sandbox.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/sandbox"
)

const usage = `nomadfork maintains the nomad-client-fork patch series.

Usage:

	nomadfork <command> [flags]

Commands:

	apply      download and verify the pinned upstream, materialize nomad/ and
	           apply patches/ as one commit per patch
	extract    write nomad/'s commits since the upstream base back to patches/
	check      lint patch metadata; apply the series exactly in a scratch tree
	           (no offset, re-export byte-identical); build and vet every prefix
	build      build bin/nomad from nomad/, stamped with the fork release
	test       run upstream's client tests of nomad/ in the sandbox (the packages
	           the series touches with -race) and sim/'s, skipping exactly the
	           baselines' failures of unpatched upstream
	baseline   run the same tests on unpatched upstream and write the baselines
	rebase     move the series onto a newer upstream (-onto v, -continue, -abort),
	           dropping patches upstream already carries
	drop       record that upstream carries a patch (Upstream-Status: applied v)
	status     read-only: how each patch fares against newer upstream versions
	export     upstream-ready commits: a branch per patch and an mbox for git am
	sandbox    run a command inside the private network/mount/pid sandbox
	bench      measure alloc-update and Raft traffic, bytes, CPU and deployment
	           times of a real cluster in the sandbox (3 servers, 3 clients on
	           hosts of their own): upstream, the fork, v1.6.1, variants

Run 'nomadfork <command> -h' for a command's flags. Commands run in the
repository's top directory (the one holding upstream.json); -C changes it.
`

type command struct {
	name string
	run  func(ctx context.Context, env *env, args []string) error
}

var commands = []command{
	{"apply", runApply},
	{"extract", runExtract},
	{"check", runCheck},
	{"build", runBuild},
	{"test", runTest},
	{"baseline", runBaseline},
	{"rebase", runRebase},
	{"drop", runDrop},
	{"status", runStatus},
	{"export", runExport},
	{"sandbox", runSandbox},
	{"bench", runBench},
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitArg {
		os.Exit(sandbox.Init(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == bench.RunArg {
		os.Exit(bench.ScenarioMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	top := flag.NewFlagSet("nomadfork", flag.ContinueOnError)
	top.SetOutput(stderr)
	top.Usage = func() { fmt.Fprint(stderr, usage) }
	root := top.String("C", "", "run in `dir` instead of the current directory")
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if top.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, rest := top.Arg(0), top.Args()[1:]
	if name == "help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == name {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		var names []string
		for _, c := range commands {
			names = append(names, c.name)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "nomadfork: unknown command %q (commands: %s)\n", name, strings.Join(names, ", "))
		return 2
	}
	e, err := newEnv(*root, stdout, stderr)
	if err != nil && cmd.name != "sandbox" {
		fmt.Fprintf(stderr, "nomadfork: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cmd.run(ctx, e, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var usageErr usageError
		if errors.As(err, &usageErr) {
			fmt.Fprintf(stderr, "nomadfork %s: %v\n", name, err)
			return 2
		}
		fmt.Fprintf(stderr, "nomadfork %s: %v\n", name, err)
		var exit exitCode
		if errors.As(err, &exit) {
			return int(exit)
		}
		return 1
	}
	return 0
}

type usageError struct{ error }

type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func newFlags(e *env, name, args string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: nomadfork %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}
