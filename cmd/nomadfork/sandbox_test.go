package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// sandboxRun is `nomadfork sandbox -- sh -c script` as a subprocess, its
// own process group (killed at the end, whatever the run left), with the
// lines the script prints.
type sandboxRun struct {
	cmd    *exec.Cmd
	lines  chan string // closed at EOF: no process holds stdout any more
	exited chan error
}

func startSandbox(t *testing.T, script string) *sandboxRun {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox needs root")
	}
	for _, tool := range []string{"unshare", "ip", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(err)
		}
	}
	cmd := exec.Command(os.Args[0], "sandbox", "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), testMainEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL); r.Close() })
	s := &sandboxRun{cmd: cmd, lines: make(chan string, 16), exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() { s.exited <- cmd.Wait() }()
	return s
}

// expect waits for the line want, failing after a deadline.
func (s *sandboxRun) expect(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("the sandboxed command's output ended before %q", want)
			}
			if line == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q from the sandboxed command within 30s", want)
		}
	}
}

// eof waits until no process holds the command's stdout: every process
// of the sandbox has ended.
func (s *sandboxRun) eof(t *testing.T) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case _, ok := <-s.lines:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("a process of the sandbox still runs 30s after nomadfork sandbox was stopped")
		}
	}
}

// The first SIGTERM (or SIGINT) to `nomadfork sandbox` reaches the
// sandboxed command, whose exit code the tool then exits with.
func TestSandboxForwardsSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			s := startSandbox(t, `trap 'echo got; exit 3' TERM INT; echo ready; while :; do sleep 1 & wait $!; done`)
			s.expect(t, "ready")
			s.cmd.Process.Signal(sig)
			s.expect(t, "got")
			s.eof(t)
			err := <-s.exited
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Errorf("nomadfork sandbox ended with %v, want the command's exit code 3", err)
			}
		})
	}
}

// A command that outlives the first signal is killed, with everything
// else in the sandbox, when a second one stops the tool: nothing runs on
// under pid 1.
func TestSandboxSecondSignalLeavesNothing(t *testing.T) {
	s := startSandbox(t, `trap 'echo got' TERM; echo ready; while :; do sleep 1 & wait $!; done`)
	s.expect(t, "ready")
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.expect(t, "got")
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.eof(t)
	if err := <-s.exited; err == nil {
		t.Error("nomadfork sandbox stopped by a second signal exited 0")
	}
}
