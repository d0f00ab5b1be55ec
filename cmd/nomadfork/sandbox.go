package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// usageSandbox is the help of sandbox.
const usageSandbox = `usage: nomadfork sandbox -- command [args...]

Runs the command in new network, mount and PID namespaces: only lo and a veth
pair with a default route via 192.0.2.254 that leads nowhere; 169.254.0.0/16
and the private ranges unreachable; the machine's cgroups hidden; every
process killed when the command exits. Needs root, unshare (util-linux) and ip
(iproute2). Run go mod download first: there is no network inside. Nomad's
tests need the tree's nomad on PATH (see make test-sim).
`

func runSandbox(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(e.stderr, usageSandbox)
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

func init() {
	register(command{name: "sandbox", summary: "run a command inside the private network/mount/pid sandbox",
		help: usageSandbox, run: runSandbox})
	register(command{name: sandbox.InitArg, summary: "the first process of a new sandbox",
		help:  "The first process of a new sandbox (nomadfork sandbox re-executes the tool\nwith it): sets up and verifies the network, hides the machine's cgroups,\nruns the command after it and reaps every process until that one exits.",
		entry: func(args []string, _, _ io.Writer) int { return sandbox.Init(args) }})
}
