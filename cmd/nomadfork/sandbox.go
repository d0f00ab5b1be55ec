package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(e.stderr, prog.Lookup("sandbox").Help)
		if len(args) == 0 {
			return usageError(errors.New("no command given"))
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

func init() {
	register(command{Name: "sandbox", Run: runSandbox, Bare: true},
		command{Name: sandbox.InitArg, Entry: func(args []string, _, _ io.Writer) int { return sandbox.Init(args) }})
}
