// Package cli runs a program's command table: the top-level flags, the
// lookup of the verb, the tool's lock, the recovery of an interrupted run
// before a verb, the context the first SIGINT or SIGTERM cancels, and the
// exit code of how the verb ended, and a verb's flag set. It says nothing
// itself but a verb's flag usage (FlagSet) and an argument too many
// (Parse): the program writes every other word (Program.Usage,
// Program.Report, Program.Stopped).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
)

// ExitInterrupted is the exit code after SIGINT or SIGTERM, as a shell's.
const ExitInterrupted = 130

// UsageError is a mistake in the command line: exit code 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// FlagError is a usage error the flag package has already printed.
type FlagError struct{ Err error }

func (e FlagError) Error() string { return e.Err.Error() }
func (e FlagError) Unwrap() error { return e.Err }

// ExitCode ends a verb with that exit code.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// A Command is a verb of a program, run in an environment of type E.
type Command[E any] struct {
	Name, Summary string
	// Help is the long help printed below the usage line.
	Help string
	Run  func(ctx context.Context, env E, args []string) error
	// Lock: the verb takes the tool's lock.
	Lock bool
	// Bare: the verb runs even when the environment could not be made,
	// without recovering an interrupted run and without being reported
	// on a second signal (it runs a command of its own).
	Bare bool
	// Entry, for a hidden verb, is its whole program: Main runs it before
	// anything else (no flags, no signal handling).
	Entry func(args []string, stdout, stderr io.Writer) int
	// Resume, if set, is the verb's resume rule: the command line that
	// resumes it, run with args on env and interrupted; ok is false when
	// the same command line resumes.
	Resume func(ctx context.Context, env E, args []string) (command string, ok bool)
}

// Hidden reports whether c is an internal entry point, left out of the
// usage.
func (c *Command[E]) Hidden() bool { return c.Entry != nil }

// Kind is how a run ended.
type Kind int

const (
	Done               Kind = iota // nothing to say: the exit code says it
	Unknown                        // no such verb (Verb)
	NoEnv                          // the environment could not be made (Err)
	NotLocked                      // the tool's lock was not taken (Err)
	RecoverFailed                  // recovering an earlier run failed (Err)
	RecoverInterrupted             // interrupted while recovering an earlier run
	Interrupted                    // interrupted during Step
	Usage                          // a UsageError (Err)
	Exit                           // an ExitCode (Err)
	Failed                         // any other error (Err)
)

// An End is how a run of a verb ended, for the program to report.
type End struct {
	Kind Kind
	Verb string
	Args []string
	Err  error
	// Step is the step under way when the run was interrupted.
	Step string
	Code int
}

// A Program is a command table and what running one of its verbs needs
// from the program.
type Program[E any] struct {
	// Name names the top-level flag set.
	Name     string
	commands []Command[E]
	// Usage is the program's usage, printed by help and on a bad command
	// line.
	Usage func() string
	// Env makes a run's environment in dir root ("": the current
	// directory).
	Env func(root string, stdout, stderr io.Writer) (E, error)
	// Lock takes the tool's lock for verb.
	Lock func(env E, verb string) (release func(), err error)
	// Recover finishes what an earlier interrupted run left, before a
	// verb runs; locked: the verb holds the lock.
	Recover func(ctx context.Context, env E, locked bool) error
	// Report says how a run ended, unless it is Done.
	Report func(env E, end End, stderr io.Writer)
	// Stopped says, on a second signal, what was stopped at once and how
	// to resume: Step is the step under way.
	Stopped func(env E, end End, stderr io.Writer)
	// FirstSignal, if set, runs once the first signal has cancelled the
	// verb.
	FirstSignal func()

	// running is the verb under way, for a second signal, which stops at
	// once: what to report, and the tool's lock to release.
	running struct {
		sync.Mutex
		env     E
		verb    string
		args    []string
		release func()
	}
}

// Register adds c to the table.
func (p *Program[E]) Register(c Command[E]) {
	if p.Lookup(c.Name) != nil {
		panic("cli: command " + c.Name + " registered twice")
	}
	p.commands = append(p.commands, c)
}

// Commands returns the table.
func (p *Program[E]) Commands() []Command[E] { return p.commands }

// Lookup returns the command name, or nil.
func (p *Program[E]) Lookup(name string) *Command[E] {
	for i := range p.commands {
		if p.commands[i].Name == name {
			return &p.commands[i]
		}
	}
	return nil
}

// Visible returns the commands order names that are not hidden, in that
// order.
func (p *Program[E]) Visible(order []string) []Command[E] {
	var out []Command[E]
	for _, name := range order {
		if c := p.Lookup(name); c != nil && !c.Hidden() {
			out = append(out, *c)
		}
	}
	return out
}

// FlagSet returns the flag set of the verb name, writing to w; -h prints
// usage (the program's usage line of the verb), the verb's long help and
// the flags.
func (p *Program[E]) FlagSet(name, usage string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintln(w, strings.TrimSpace(usage))
		if c := p.Lookup(name); c != nil && c.Help != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Help))
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// Main runs the command line args (os.Args[1:]) and exits: a hidden
// verb's entry at once, any other under signal handling. The first SIGINT
// or SIGTERM cancels the verb, which undoes or finishes what it was doing
// and says how to resume; a second one stops it at once, still saying so.
func (p *Program[E]) Main(args []string) {
	if len(args) > 0 {
		if c := p.Lookup(args[0]); c != nil && c.Hidden() {
			os.Exit(c.Entry(args[1:], os.Stdout, os.Stderr))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	// A closed pipe on stdout (`nomadfork check | head`) ends the run as
	// an interruption does, cleaning up, where it killed the process
	// mid-step: with SIGPIPE notified, a write to the pipe fails instead.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	go func() {
		<-pipe
		cancel()
		for range pipe {
		}
	}()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		if h := p.FirstSignal; h != nil {
			h()
		}
		<-sigs
		os.Exit(p.stopAtOnce(os.Stderr))
	}()
	code := p.Run(ctx, args, os.Stdout, os.Stderr)
	signal.Stop(sigs)
	os.Exit(code)
}

// stopAtOnce, on a second signal, has the program say what was
// interrupted, releases the tool's lock and returns the exit code.
// Whatever the run leaves (a git step under way, a change of the series
// not yet switched, a scratch work tree) the next run recovers first, as
// after a kill.
func (p *Program[E]) stopAtOnce(stderr io.Writer) int {
	r := &p.running
	r.Lock()
	defer r.Unlock()
	if r.verb == "" {
		return ExitInterrupted
	}
	step := progress.Current()
	if step == "" {
		step = r.verb
	}
	p.Stopped(r.env, End{Kind: Interrupted, Verb: r.verb, Args: r.args, Step: step, Code: ExitInterrupted}, stderr)
	if r.release != nil {
		r.release()
	}
	return ExitInterrupted
}

// Run runs the command line args and returns the exit code.
func (p *Program[E]) Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// An interruption names this run's step, never an earlier one's.
	progress.Reset()
	var zero E
	top := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	top.SetOutput(stderr)
	top.Usage = func() { fmt.Fprint(stderr, p.Usage()) }
	root := top.String("C", "", "run in `dir` instead of the current directory")
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if top.NArg() == 0 {
		fmt.Fprint(stderr, p.Usage())
		return 2
	}
	name, rest := top.Arg(0), top.Args()[1:]
	if name == "help" {
		if len(rest) == 0 {
			fmt.Fprint(stdout, p.Usage())
			return 0
		}
		name, rest, stderr = rest[0], []string{"-h"}, stdout
	}
	cmd := p.Lookup(name)
	if cmd == nil || cmd.Hidden() {
		p.Report(zero, End{Kind: Unknown, Verb: name, Code: 2}, stderr)
		return 2
	}
	e, err := p.Env(*root, stdout, stderr)
	help := len(rest) > 0 && (rest[0] == "-h" || rest[0] == "-help" || rest[0] == "--help")
	if err != nil && !cmd.Bare && !help {
		p.Report(zero, End{Kind: NoEnv, Verb: name, Err: err, Code: 1}, stderr)
		return 1
	}
	r := &p.running
	if !help && !cmd.Bare {
		r.Lock()
		r.env, r.verb, r.args = e, name, rest
		r.Unlock()
		defer func() {
			r.Lock()
			r.env, r.verb, r.args, r.release = zero, "", nil, nil
			r.Unlock()
		}()
	}
	if cmd.Lock && !help {
		release, err := p.Lock(e, cmd.Name)
		if err != nil {
			p.Report(e, End{Kind: NotLocked, Verb: name, Args: rest, Err: err, Code: 1}, stderr)
			return 1
		}
		release = sync.OnceFunc(release)
		r.Lock()
		r.release = release
		r.Unlock()
		defer release()
	}
	if err == nil && !help && !cmd.Bare {
		if rerr := p.Recover(ctx, e, cmd.Lock); rerr != nil {
			if ctx.Err() != nil {
				p.Report(e, End{Kind: RecoverInterrupted, Verb: name, Args: rest, Err: rerr, Code: ExitInterrupted}, stderr)
				return ExitInterrupted
			}
			// Running the verb again recovers first, again.
			p.Report(e, End{Kind: RecoverFailed, Verb: name, Args: rest, Err: rerr, Code: 1}, stderr)
			return 1
		}
	}
	end := Classify(ctx, cmd.Run(ctx, e, rest))
	end.Verb, end.Args = name, rest
	if end.Kind == Interrupted && end.Step == "" {
		end.Step = name
	}
	if end.Kind != Done {
		p.Report(e, end, stderr)
	}
	return end.Code
}

// Classify returns how a verb that returned err ended.
func Classify(ctx context.Context, err error) End {
	var usageErr UsageError
	var flagErr FlagError
	var exit ExitCode
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return End{Kind: Done}
	case errors.As(err, &flagErr):
		return End{Kind: Done, Err: err, Code: 2}
	case errors.As(err, &exit):
		// The verb's own outcome, such as the exit code of the command
		// the sandbox ran, which a signal may have ended.
		return End{Kind: Exit, Err: err, Code: int(exit)}
	case ctx.Err() != nil || git.Interrupted(err):
		// Before usage errors: a lookup the interruption cut short can
		// read as a bad argument (an unknown line).
		return End{Kind: Interrupted, Err: err, Step: progress.Current(), Code: ExitInterrupted}
	case errors.As(err, &usageErr):
		return End{Kind: Usage, Err: err, Code: 2}
	}
	return End{Kind: Failed, Err: err, Code: 1}
}

// Parse parses args into fs and allows at most maxArgs arguments after
// the flags: a FlagError when the flag package has said what is wrong, a
// UsageError for the arguments.
func Parse(fs *flag.FlagSet, args []string, maxArgs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return FlagError{err}
	}
	if fs.NArg() > maxArgs {
		return UsageError{hint.Errorf("unexpected arguments: %s (see %s)", strings.Join(fs.Args()[maxArgs:], " "), hint.Run("help", fs.Name()))}
	}
	return nil
}

// Flag is a boolean flag's name (without the dash) and whether it is set,
// for AtMostOne.
type Flag struct {
	Name string
	Set  bool
}

// AtMostOne is a UsageError naming every one of flags, in order, when more
// than one of them is set ("-a, -b and -c exclude each other"); nil
// otherwise.
func AtMostOne(flags ...Flag) error {
	names := make([]string, len(flags))
	set := 0
	for i, f := range flags {
		names[i] = "-" + f.Name
		if f.Set {
			set++
		}
	}
	if set <= 1 {
		return nil
	}
	last := len(names) - 1
	return UsageError{Err: fmt.Errorf("%s and %s exclude each other", strings.Join(names[:last], ", "), names[last])}
}

// FlagValues picks the flags named in values (-f v, -f=v) and bools (-f:
// "true") out of a verb's command line, skipping every other argument:
// for working out, without the verb's flag set, what a command line
// selected.
func FlagValues(args, values, bools []string) map[string]string {
	has := func(names []string, n string) bool { return slices.Contains(names, n) }
	v := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := strings.TrimLeft(args[i], "-")
		name, val, eq := strings.Cut(a, "=")
		switch {
		case eq && has(values, name):
			v[name] = val
		case !eq && has(values, a) && i+1 < len(args):
			v[a] = args[i+1]
			i++
		case !eq && has(bools, a):
			v[a] = "true"
		}
	}
	return v
}
