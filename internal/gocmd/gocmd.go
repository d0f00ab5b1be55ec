// Package gocmd runs the go command: the one place the tool starts it, so
// every run is cancelled with its context, dies with the tool and fails
// with an error that says which go command failed, where, and what it
// printed on stderr.
package gocmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Cmd is how to run the go command. The zero value runs it in the current
// directory with the tool's environment.
type Cmd struct {
	// Dir is the directory it runs in.
	Dir string
	// Env is its whole environment; nil means os.Environ().
	Env []string
	// Log, if set, receives what it prints on stderr as it prints it (and
	// on stdout, for Run); the error still quotes the end of stderr.
	Log io.Writer
}

// Error is a go command that failed.
type Error struct {
	Args []string
	Dir  string
	Err  error
	// Stderr is the end of what it printed on stderr.
	Stderr string
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("go %s", strings.Join(e.Args, " "))
	if e.Dir != "" {
		msg += " in " + e.Dir
	}
	msg += ": " + e.Err.Error()
	if e.Stderr != "" {
		msg += "\n" + e.Stderr
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// stderrLines is how much of stderr an Error quotes.
const stderrLines = 40

// Run runs go with args, its stdout to c.Log (or discarded).
func (c Cmd) Run(ctx context.Context, args ...string) error {
	_, err := c.run(ctx, false, args)
	return err
}

// Output runs go with args and returns its stdout.
func (c Cmd) Output(ctx context.Context, args ...string) ([]byte, error) {
	return c.run(ctx, true, args)
}

// Argv returns the command line that runs go with args elsewhere (such as
// inside the sandbox, where the caller starts it): the go command of the
// toolchain c.Dir selects, then args.
func (c Cmd) Argv(ctx context.Context, args ...string) []string {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	return append([]string{c.binary(ctx, env)}, args...)
}

// CombinedOutput runs go with args and returns its stdout and stderr
// interleaved, as exec.Cmd.CombinedOutput does.
func (c Cmd) CombinedOutput(ctx context.Context, args ...string) ([]byte, error) {
	var out bytes.Buffer
	cmd := c.command(ctx, args)
	// One writer for both: exec then copies them in one goroutine.
	w := c.tee(&out)
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	return out.Bytes(), c.failure(ctx, args, err, out.Bytes())
}

func (c Cmd) run(ctx context.Context, capture bool, args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	c.Log = locked(c.Log) // written by stdout's and stderr's goroutines
	cmd := c.command(ctx, args)
	cmd.Stderr = c.tee(&stderr)
	switch {
	case capture:
		cmd.Stdout = &stdout
	case c.Log != nil:
		cmd.Stdout = c.Log
	}
	err := cmd.Run()
	return stdout.Bytes(), c.failure(ctx, args, err, stderr.Bytes())
}

// failure is the error of a run of go with args that ended with err,
// having printed stderr: nil, the context's error, or an *Error.
func (c Cmd) failure(ctx context.Context, args []string, err error, stderr []byte) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return &Error{Args: args, Dir: c.Dir, Err: err, Stderr: lastLines(stderr, stderrLines)}
}

func (c Cmd) command(ctx context.Context, args []string) *exec.Cmd {
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.CommandContext(ctx, c.binary(ctx, env), args...)
	cmd.Dir = c.Dir
	cmd.Env = env
	// A tool killed outright (kill -9) takes its go command along. The
	// signal is the starting thread's: a go command that switches
	// toolchains (GOTOOLCHAIN, a go.mod toolchain line) execs the other
	// one from any of its threads and loses it, so binary runs the
	// selected toolchain's own go command, which switches no more.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// binaries caches the go command each directory and GOTOOLCHAIN select.
var binaries sync.Map

// binary returns the go command of the toolchain that `go` selects in
// c.Dir with env: that toolchain's bin/go (downloaded by the selecting
// run if needed), or "go" when it cannot tell.
func (c Cmd) binary(ctx context.Context, env []string) string {
	toolchain := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOTOOLCHAIN="); ok {
			toolchain = v
		}
	}
	key := c.Dir + "\x00" + toolchain
	if bin, ok := binaries.Load(key); ok {
		return bin.(string)
	}
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT")
	cmd.Dir, cmd.Env = c.Dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.Output()
	if err != nil {
		return "go" // the real run says what is wrong
	}
	bin := filepath.Join(strings.TrimSpace(string(out)), "bin", "go")
	if _, err := os.Stat(bin); err != nil {
		return "go"
	}
	binaries.Store(key, bin)
	return bin
}

func (c Cmd) tee(w io.Writer) io.Writer {
	if c.Log == nil {
		return w
	}
	return io.MultiWriter(w, c.Log)
}

// lockedWriter serializes the writes of two goroutines to one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func locked(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &lockedWriter{w: w}
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lastLines returns the last n lines of b, trimmed.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
