package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// HiddenMain is the body of a hidden scenario verb (name) run inside the
// sandbox: parse parses its flags (an error exits 2), run runs the scenario
// under a context that ends on SIGINT or SIGTERM with stderr for its log,
// and its result is printed as one line of JSON on stdout (WriteResult).
// It returns the exit code.
func HiddenMain[O, R any](name string, args []string, stdout, stderr io.Writer, parse func(args []string) (O, error), run func(ctx context.Context, opts O, log io.Writer) (R, error)) int {
	opts, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	result, err := run(ctx, opts, stderr)
	return WriteResult(stdout, stderr, result, err)
}

// WriteResult prints a scenario run's result as one line of JSON on stdout
// for the parent process and returns the run's exit code: 1 when err, the
// run's error, or the encoding failed.
func WriteResult(stdout, stderr io.Writer, result any, err error) int {
	data, merr := json.Marshal(result)
	if merr != nil {
		fmt.Fprintln(stderr, merr)
		return 1
	}
	fmt.Fprintln(stdout, string(data))
	if err != nil {
		return 1
	}
	return 0
}

// Result is what a scenario run returns: its error is recorded in it.
type Result interface{ SetError(string) }

// Recorded wraps a scenario's run so that its error is recorded in its
// result (which the run never returns nil) before the result is printed.
func Recorded[O any, R Result](run func(ctx context.Context, opts O, log io.Writer) (R, error)) func(context.Context, O, io.Writer) (R, error) {
	return func(ctx context.Context, opts O, log io.Writer) (R, error) {
		res, err := run(ctx, opts, log)
		if err != nil {
			res.SetError(err.Error())
		}
		return res, err
	}
}

// InSandbox runs argv — the tool itself with a hidden verb — in a fresh
// sandbox, bounded by limit: past it, or when ctx ends, the sandbox is
// killed, and with it every process inside. The command's stderr goes to
// stderr; the last line of its stdout, its result, is passed to decode
// (not called when the command printed nothing). It returns the sandbox's
// process state (its rusage covers every process of the run; nil when it
// did not start) and the first error of the run or of decode.
func InSandbox(ctx context.Context, argv []string, limit time.Duration, stderr io.Writer, decode func(line []byte) error) (*os.ProcessState, error) {
	cmd, err := sandbox.Command(argv)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Killing unshare (--kill-child) ends the namespace and every process
	// in it.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return cmd.ProcessState, ctx.Err()
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return cmd.ProcessState, fmt.Errorf("the run did not end within %s", limit)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if len(out) > 0 {
		if err := decode(out); err != nil && runErr == nil {
			runErr = err
		}
	}
	return cmd.ProcessState, runErr
}

// RunFresh runs argv — the tool itself with a hidden verb — in a fresh
// sandbox bounded by limit (see InSandbox), after emptying dir, the run's
// directory. The JSON result line the run prints is decoded into result;
// decoded is false when it printed none. err is the run's or the
// decoding's first error.
func RunFresh(ctx context.Context, argv []string, limit time.Duration, dir string, stderr io.Writer, result any) (decoded bool, err error) {
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	_, err = InSandbox(ctx, argv, limit, stderr, func(line []byte) error {
		if err := json.Unmarshal(line, result); err != nil {
			return fmt.Errorf("decoding the scenario's result: %w", err)
		}
		decoded = true
		return nil
	})
	return decoded, err
}

// RunOne runs argv in a fresh sandbox (RunFresh) and returns its result:
// the one it printed, else fallback; a run's error that the result does
// not hold is recorded in it (errOf returns the result's error field).
func RunOne[R any](ctx context.Context, argv []string, limit time.Duration, dir string, stderr io.Writer, fallback *R, errOf func(*R) *string) *R {
	var got R
	decoded, err := RunFresh(ctx, argv, limit, dir, stderr, &got)
	res := fallback
	if decoded {
		res = &got
	}
	if e := errOf(res); err != nil && *e == "" {
		*e = err.Error()
	}
	return res
}

// Prepare starts every scenario run inside the sandbox: it refuses to run
// outside the sandbox (before any agent starts), returns invalid (the
// options' Validate error) if any, mounts a tmpfs for the agents' data
// dirs at dataRoot and probes nomad's version (zero when the probe fails:
// the run goes on without it).
func Prepare(ctx context.Context, invalid error, dataRoot, nomad string) (Version, error) {
	if err := sandbox.Verify(); err != nil {
		return Version{}, fmt.Errorf("refusing to start agents outside the sandbox: %w", err)
	}
	if invalid != nil {
		return Version{}, invalid
	}
	if err := cluster.MountTmpfs(dataRoot); err != nil {
		return Version{}, err
	}
	v, _ := ProbeVersion(ctx, nomad)
	return v, nil
}
