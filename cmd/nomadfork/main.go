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
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/diskspace"
	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

const usageHead = `nomadfork maintains the nomad-client-fork patch series.

Usage:

	nomadfork [-C dir] <command> [flags]
	nomadfork help <command>

Commands:

`

const usageTail = `
Flags:

	-C dir     run in dir instead of the current directory

Commands run in the repository's top directory (the one holding
patches/default-line). Every command but sandbox works on one maintained
line: -line <version> selects it (patches/<version>/ holds its pin, series
and baselines; its work tree is lines/<version>/nomad), the default is the
line patches/default-line names (its work tree is nomad/). apply, extract,
rebase, drop and export change a series or a work tree; they (and check,
status, baseline and contract, which share the scratch space) take a lock,
out/nomadfork.lock, so only one runs at a time.
`

func main() {
	if len(os.Args) > 1 {
		if c := lookup(os.Args[1]); c != nil && c.hidden() {
			os.Exit(c.entry(os.Args[2:], os.Stdout, os.Stderr))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal cancels the command, which undoes or finishes
		// what it was doing and says how to resume; a second one stops
		// it at once, still saying so.
		<-sigs
		cancel()
		if h := testHookFirstSignal; h != nil {
			h()
		}
		<-sigs
		os.Exit(stopAtOnce(os.Stderr))
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// testHookFirstSignal, if set, runs once the first signal has cancelled
// the command: a test then sends the second.
var testHookFirstSignal func()

// running is the command under way, for a second signal, which stops
// nomadfork at once: what to report, and the tool's lock to release.
var running struct {
	sync.Mutex
	root, name string
	args       []string
	release    func()
}

// stopAtOnce, on a second signal, says what was interrupted and how to
// resume, releases the tool's lock and returns the exit code. Whatever
// the run leaves (a git step under way, a change of the series not yet
// switched, a scratch work tree) the next command recovers first, as
// after a kill.
func stopAtOnce(stderr io.Writer) int {
	running.Lock()
	defer running.Unlock()
	if running.name == "" {
		return exitInterrupted
	}
	step := progress.Current()
	if step == "" {
		step = running.name
	}
	// Working it out runs git: not for long, when git is what hangs.
	resume := make(chan string, 1)
	go func(root, name string, args []string) { resume <- resumeAfterStop(root, name, args) }(running.root, running.name, running.args)
	cmd := again(running.name, running.args)
	select {
	case cmd = <-resume:
	case <-time.After(2 * time.Second):
	}
	fmt.Fprintf(stderr, "nomadfork %s: interrupted again, stopped at once during %s; run %s to resume (it first recovers what this run left)\n",
		running.name, step, cmd)
	if running.release != nil {
		running.release()
	}
	return exitInterrupted
}

// resumeAfterStop is resumeCommand for a run stopped at once: worked out
// on an env of its own, from the files, so it shares nothing with the
// stopped command's goroutine.
func resumeAfterStop(root, name string, args []string) string {
	same := again(name, args)
	e, err := newEnv(root, io.Discard, io.Discard)
	if err != nil {
		return same
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&e.lineName, "line", "", "")
	onto := fs.String("onto", "", "")
	newLine := fs.Bool("new-line", false, "")
	// Only -line, -onto and -new-line matter: skip the other flags.
	var known []string
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		switch {
		case a == "line" || a == "onto":
			if i+1 < len(args) {
				known = append(known, "-"+a, args[i+1])
				i++
			}
		case a == "new-line" || strings.HasPrefix(a, "line=") || strings.HasPrefix(a, "onto="):
			known = append(known, "-"+a)
		}
	}
	if fs.Parse(known) != nil {
		return same
	}
	if name == "rebase" {
		if *newLine && *onto != "" {
			e.lineName = *onto
		}
		if e.useRebasingLine(context.Background()) != nil {
			return same
		}
		e.rebasing = e.line.Name
	} else if e.useLine() != nil {
		return same
	}
	return resumeCommand(e, name, args)
}

// exitInterrupted is the exit code after SIGINT or SIGTERM, as a shell's.
const exitInterrupted = 130

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// An interruption names this command's step, never an earlier one's.
	progress.Reset()
	top := flag.NewFlagSet("nomadfork", flag.ContinueOnError)
	top.SetOutput(stderr)
	top.Usage = func() { fmt.Fprint(stderr, usage()) }
	root := top.String("C", "", "run in `dir` instead of the current directory")
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if top.NArg() == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	name, rest := top.Arg(0), top.Args()[1:]
	if name == "help" {
		if len(rest) == 0 {
			fmt.Fprint(stdout, usage())
			return 0
		}
		name, rest, stderr = rest[0], []string{"-h"}, stdout
	}
	cmd := lookup(name)
	if cmd == nil || cmd.hidden() {
		var names []string
		for _, c := range visible() {
			names = append(names, c.name)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "nomadfork: unknown command %q (commands: %s)\n", name, strings.Join(names, ", "))
		return 2
	}
	e, err := newEnv(*root, stdout, stderr)
	help := len(rest) > 0 && (rest[0] == "-h" || rest[0] == "-help" || rest[0] == "--help")
	if err != nil && cmd.name != "sandbox" && !help {
		fmt.Fprintf(stderr, "nomadfork: %v\n", err)
		return 1
	}
	if !help && cmd.name != "sandbox" {
		running.Lock()
		running.root, running.name, running.args = e.root, name, rest
		running.Unlock()
		defer func() {
			running.Lock()
			running.root, running.name, running.args, running.release = "", "", nil, nil
			running.Unlock()
		}()
	}
	if cmd.lock && !help {
		release, err := e.lock(cmd.name)
		if err != nil {
			fmt.Fprintf(stderr, "nomadfork %s: %v\n", name, err)
			return 1
		}
		release = sync.OnceFunc(release)
		running.Lock()
		running.release = release
		running.Unlock()
		defer release()
	}
	if e != nil && err == nil && !help && cmd.name != "sandbox" {
		if rerr := e.recoverInterrupted(ctx, cmd.lock); rerr != nil {
			again := again(name, rest)
			if ctx.Err() != nil {
				fmt.Fprintf(stderr, "nomadfork %s: interrupted while finishing an earlier interrupted run; run %s to resume\n", name, again)
				return exitInterrupted
			}
			// Running the command again recovers first, again.
			fmt.Fprintf(stderr, "nomadfork %s: %s%s; then run %s again\n", name, cause(rerr), e.render(rerr), again)
			return 1
		}
	}
	err = cmd.run(ctx, e, rest)
	var usageErr usageError
	var flagErr flagError
	var exit exitCode
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &flagErr):
		return 2
	case ctx.Err() != nil || git.Interrupted(err):
		// Before usage errors: a lookup the interruption cut short can
		// read as a bad argument (an unknown line).
		step := progress.Current()
		if step == "" {
			step = name
		}
		fmt.Fprintf(stderr, "nomadfork %s: interrupted during %s; run %s to resume\n", name, step, resumeCommand(e, name, rest))
		return exitInterrupted
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "nomadfork %s: %s\n", name, e.render(err))
		return 2
	case errors.As(err, &exit):
		fmt.Fprintf(stderr, "nomadfork %s: %s\n", name, e.render(err))
		return int(exit)
	}
	msg, why := e.render(err), cause(err)
	if why != "" {
		// Said first: not again inside.
		msg = strings.Replace(msg, why, "", 1)
	}
	fmt.Fprintf(stderr, "nomadfork %s: %s%s\n", name, why, msg)
	remedy(e, err, name, rest, stderr)
	return 1
}

// A condition is a system condition behind an error: the message names it
// first (cause), and says what to do about it (remedy) before the command
// runs again.
type condition struct {
	is     func(err error) bool
	cause  func(err error) string
	remedy func(e *env, err error) string
}

// conditions are the conditions the tool names; the first that an error
// is applies.
var conditions = []condition{
	{is: func(err error) bool { return errors.Is(err, syscall.ENOSPC) },
		cause: func(err error) string {
			if strings.HasPrefix(err.Error(), "disk full") {
				return "" // said already
			}
			return "disk full (no space left on device): "
		},
		remedy: func(e *env, err error) string {
			dir := e.line.WorkTree
			var pe *os.PathError
			if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
				dir = filepath.Dir(pe.Path)
			}
			if mount, free, ok := diskspace.FileSystemOf(dir); ok {
				return fmt.Sprintf("free space on %s (the file system of %s; %d MB free now)", mount, dir, free>>20)
			}
			return "free space on the file system of " + dir
		}},
	{is: func(err error) bool {
		var nw *txn.NotWritableError
		return errors.As(err, &nw)
	},
		// Found before the transaction's first write.
		cause: readOnlyCause,
		remedy: func(_ *env, err error) string {
			var nw *txn.NotWritableError
			errors.As(err, &nw)
			return "nothing was changed; " + makeWritable(nw.Path)
		}},
	{is: func(err error) bool { return errors.Is(err, syscall.EROFS) }, cause: readOnlyCause},
	{is: func(err error) bool {
		var pe *os.PathError
		return errors.As(err, &pe) && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM))
	},
		cause: func(err error) string {
			var pe *os.PathError
			errors.As(err, &pe)
			return pe.Path + " is not writable: "
		},
		remedy: func(_ *env, err error) string {
			var pe *os.PathError
			errors.As(err, &pe)
			return makeWritable(pe.Path)
		}},
}

func readOnlyCause(err error) string {
	if errors.Is(err, syscall.EROFS) {
		return "read-only file system: "
	}
	return ""
}

func makeWritable(path string) string {
	return "make " + path + " writable (`chmod u+w`; an immutable file: `chattr -i`)"
}

// conditionOf returns the condition err is, or nil.
func conditionOf(err error) *condition {
	for i := range conditions {
		if conditions[i].is(err) {
			return &conditions[i]
		}
	}
	return nil
}

// cause names, first, the system condition behind err when the message
// would bury it: a full disk, a read-only file system, a permission.
func cause(err error) string {
	if c := conditionOf(err); c != nil && c.cause != nil {
		return c.cause(err)
	}
	return ""
}

// remedy says, after an error a system condition caused, what to do about
// it and the command to run then.
func remedy(e *env, err error, name string, rest []string, stderr io.Writer) {
	if c := conditionOf(err); e != nil && c != nil && c.remedy != nil {
		fmt.Fprintf(stderr, "nomadfork %s: %s, then run %s\n", name, c.remedy(e, err), resumeCommand(e, name, rest))
	}
}

// resumeCommand is what goes on after an interrupted command, quoted:
// the same command line, except that a rebase in progress continues and
// an apply (or a drop that was applying its edit) applies.
func resumeCommand(e *env, name string, args []string) string {
	has := func(flag string) bool {
		for _, a := range args {
			if a == "-"+flag || a == "--"+flag {
				return true
			}
		}
		return false
	}
	switch {
	case name == "rebase" && e.rebaser().InProgress(context.Background()):
		// An interrupted -abort is finished by -abort again.
		verb := "-continue"
		if has("abort") {
			verb = "-abort"
		}
		ln := e.rebasing
		if ln == "" {
			// Interrupted before the rebase's line was settled.
			ln = e.line.Name
		}
		return e.command(hint.Run("rebase", verb).OnLine(ln))
	case name == "apply" && has("continue"):
		return e.say(hint.Sprintf("%s", hint.Run("apply", "-continue")))
	case name == "apply":
		return e.say(hint.Sprintf("%s", hint.Run("apply")))
	case name == "drop" && e.tree != nil:
		// Interrupted while it applied the edited patch: apply finishes.
		if st, err := e.tree.LoadState(context.Background()); err == nil && len(st.Pending) > 0 {
			return e.say(hint.Sprintf("%s", hint.Run("apply")))
		}
	}
	return again(name, args)
}

// again is the command line name args, quoted.
func again(name string, args []string) string {
	return "`" + strings.TrimSpace("nomadfork "+name+" "+strings.Join(args, " ")) + "`"
}

// usageError is a mistake in the command line.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// flagError is a usage error the flag package has already printed.
type flagError struct{ error }

type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// newFlags returns the flag set of a command; its long help is
// help/<name>.txt.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.StringVar(&e.lineName, "line", "", "work on the maintained line `version` (patches/<version>/; default: the one patches/default-line names)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, strings.TrimSpace("usage: nomadfork "+name+" [-line version] "+synopsis))
		if help := helpOf(name); help != "" {
			fmt.Fprintf(e.stderr, "\n%s\n", strings.TrimSpace(help))
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(e.stderr, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses args, allows at most maxArgs arguments after the flags and
// selects the line -line names.
func (e *env) parse(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := parseOnly(fs, args, maxArgs); err != nil {
		return err
	}
	return e.useLine()
}

// parseOnly is parse without selecting the line, for a command that finds
// its line itself.
func parseOnly(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return flagError{err}
	}
	if fs.NArg() > maxArgs {
		return usageError{fmt.Errorf("unexpected arguments: %s (see `nomadfork help %s`)", strings.Join(fs.Args()[maxArgs:], " "), fs.Name())}
	}
	return nil
}
