// Command nomadfork maintains nomad-client-fork: it materializes the pinned
// upstream Nomad as a git work tree, applies the patch series on top,
// extracts edits back into patch files, checks the series, builds the fork's
// nomad binary and runs upstream's client tests on it inside a sandbox.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/diskspace"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/line"
)

func main() {
	prog.FirstSignal = testHookFirstSignal
	prog.Main(os.Args[1:])
}

// prog is nomadfork's command table and the words its runs end with.
var prog cli.Program[*env]

func init() {
	prog.Name, prog.Usage, prog.Env = "nomadfork", usage, newEnv
	prog.Lock = (*env).lock
	prog.Recover = func(ctx context.Context, e *env, locked bool) error { return e.recoverInterrupted(ctx, locked) }
	prog.Report, prog.Stopped = report, stopped
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return prog.Run(ctx, args, stdout, stderr)
}

// testHookFirstSignal, if set, runs once the first signal has cancelled
// the command: a test then sends the second.
var testHookFirstSignal func()

// report says how a run ended.
func report(e *env, end cli.End, stderr io.Writer) {
	name, rest := end.Verb, end.Args
	switch end.Kind {
	case cli.Unknown:
		var names []string
		for _, c := range visible() {
			names = append(names, c.Name)
		}
		sort.Strings(names)
		fmt.Fprintf(stderr, "nomadfork: unknown command %q (commands: %s)\n", name, strings.Join(names, ", "))
	case cli.NoEnv:
		fmt.Fprintf(stderr, "nomadfork: %v\n", end.Err)
	case cli.NotLocked:
		fmt.Fprintf(stderr, "nomadfork %s: %v\n", name, end.Err)
	case cli.RecoverInterrupted:
		fmt.Fprintf(stderr, "nomadfork %s: interrupted while finishing an earlier interrupted run; run %s to resume\n", name, again(name, rest))
	case cli.RecoverFailed:
		fmt.Fprintf(stderr, "nomadfork %s: %s%s; then run %s again\n", name, cause(end.Err), e.render(end.Err), again(name, rest))
	case cli.Interrupted:
		fmt.Fprintf(stderr, "nomadfork %s: interrupted during %s; run %s to resume\n", name, end.Step, resumeCommand(e, name, rest))
	case cli.Usage, cli.Exit:
		fmt.Fprintf(stderr, "nomadfork %s: %s\n", name, e.render(end.Err))
	case cli.Failed:
		msg, why := e.render(end.Err), cause(end.Err)
		if why != "" {
			// Said first: not again inside.
			msg = strings.Replace(msg, why, "", 1)
		}
		fmt.Fprintf(stderr, "nomadfork %s: %s%s\n", name, why, msg)
		remedy(e, end.Err, name, rest, stderr)
	}
}

// stopped says, on a second signal, what was interrupted and how to
// resume.
func stopped(e *env, end cli.End, stderr io.Writer) {
	// Working it out runs git: not for long, when git is what hangs.
	cmd := again(end.Verb, end.Args)
	if selected, ok := e.Selected(); ok {
		resume := make(chan string, 1)
		go func() { resume <- resumeAfterStop(e.Root, selected, end.Verb, end.Args) }()
		select {
		case cmd = <-resume:
		case <-time.After(2 * time.Second):
		}
	}
	fmt.Fprintf(stderr, "nomadfork %s: interrupted again, stopped at once during %s; run %s to resume (it first recovers what this run left)\n",
		end.Verb, end.Step, cmd)
}

// resumeAfterStop is resumeCommand for a run stopped at once, on the line
// it had selected (none yet: the same command line): worked out on an
// env of its own, from the files, so it shares nothing with the stopped
// command's goroutine.
func resumeAfterStop(root string, selected line.Line, name string, args []string) string {
	e, err := newEnv(root, io.Discard, io.Discard)
	if err != nil {
		return again(name, args)
	}
	e.Select(e.CheckoutOf(selected))
	return resumeCommand(e, name, args)
}

// exitInterrupted is the exit code after SIGINT or SIGTERM, as a shell's.
const exitInterrupted = cli.ExitInterrupted

// cause names, first, the system condition behind err when the message
// would bury it: a full disk, a read-only file system, a permission.
func cause(err error) string {
	c, ok := conditionOf(err)
	switch {
	case !ok:
		return ""
	case c.Cond == diskFull:
		if strings.HasPrefix(err.Error(), "disk full") {
			return "" // said already
		}
		return "disk full (no space left on device): "
	case c.ReadOnlyFS:
		return "read-only file system: "
	case c.Cond == notWritable && !c.Checked:
		return c.Path + " is not writable: "
	}
	return ""
}

// remedy says, after an error a system condition caused, what to do about
// it and the command to run then.
func remedy(e *env, err error, name string, rest []string, stderr io.Writer) {
	c, ok := conditionOf(err)
	if e == nil || !ok || c.Cond == readOnly {
		return
	}
	what := "make " + c.Path + " writable (`chmod u+w`; an immutable file: `chattr -i`)"
	switch {
	case c.Cond == diskFull:
		dir := e.Line.WorkTree
		if c.Path != "" {
			dir = filepath.Dir(c.Path)
		}
		what = "free space on the file system of " + dir
		if mount, free, ok := diskspace.FileSystemOf(dir); ok {
			what = fmt.Sprintf("free space on %s (the file system of %s; %d MB free now)", mount, dir, free>>20)
		}
	case c.Checked:
		what = "nothing was changed; " + what
	}
	fmt.Fprintf(stderr, "nomadfork %s: %s, then run %s\n", name, what, resumeCommand(e, name, rest))
}

// resumeCommand is what goes on after an interrupted command, quoted:
// what the verb's resume rule (its command's Resume) names, else the same
// command line.
func resumeCommand(e *env, name string, args []string) string {
	if c := prog.Lookup(name); c != nil && c.Resume != nil {
		if cmd, ok := c.Resume(context.Background(), e, args); ok {
			return cmd
		}
	}
	return again(name, args)
}

// given reports which of the boolean flags names args gives.
func given(args []string, names ...string) map[string]bool {
	v := cli.FlagValues(args, nil, names)
	has := map[string]bool{}
	for _, n := range names {
		has[n] = v[n] != ""
	}
	return has
}

// again is the command line name args, quoted.
func again(name string, args []string) string {
	return "`" + strings.TrimSpace("nomadfork "+name+" "+strings.Join(args, " ")) + "`"
}

// usageError is a mistake in the command line.
func usageError(err error) error { return cli.UsageError{Err: err} }

type exitCode = cli.ExitCode

// newFlags returns the flag set of a command, with -line.
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := prog.FlagSet(name, "usage: nomadfork "+name+" [-line version] "+synopsis, e.stderr)
	fs.StringVar(&e.LineName, "line", "", "work on the maintained line `version` (patches/<version>/; default: the one patches/default-line names)")
	return fs
}

// parseOptions declares the verb name's flags into o with flags (its
// file's), parses args, selects the line -line names and checks o when
// the engine gives its options a Check() error.
func parseOptions[O any](e *env, name, synopsis string, args []string, o *O, flags func(*flag.FlagSet, *O)) error {
	fs := newFlags(e, name, synopsis)
	flags(fs, o)
	if err := e.parse(fs, args, 0); err != nil {
		return err
	}
	if c, ok := any(o).(interface{ Check() error }); ok {
		return c.Check()
	}
	return nil
}

// parse parses args (cli.Parse) and selects the line -line names.
func (e *env) parse(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := cli.Parse(fs, args, maxArgs); err != nil {
		return err
	}
	return e.UseLine()
}
