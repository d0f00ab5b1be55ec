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
		fmt.Fprint(e.stderr, helpOf("sandbox"))
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
	register(command{Name: "sandbox", Summary: "run a command inside the private network/mount/pid sandbox", Run: runSandbox, Bare: true})
	register(command{Name: sandbox.InitArg, Summary: "the first process of a new sandbox",
		Entry: func(args []string, _, _ io.Writer) int { return sandbox.Init(args) }})
}
