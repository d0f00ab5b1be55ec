package gocmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestOutputReturnsStdout(t *testing.T) {
	out, err := Cmd{}.Output(context.Background(), "env", "GOOS")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env GOOS printed nothing")
	}
}

func TestErrorNamesCommandDirAndStderr(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	err := Cmd{Dir: dir, Log: &log}.Run(context.Background(), "no-such-subcommand")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	for _, want := range []string{"go no-such-subcommand in " + dir + ": exit status", "unknown command"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if !strings.Contains(log.String(), "unknown command") {
		t.Errorf("Log got %q, want the go command's stderr", log.String())
	}
}

func TestCancelledReturnsContextError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Cmd{}).CombinedOutput(ctx, "env"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestBinaryNeedsNoSwitch: the go command run is the selected toolchain's
// own, so it does not re-exec (which loses the parent-death signal): the
// resolved binary, told to use no other toolchain, reports the version
// the selecting go command does.
func TestBinaryNeedsNoSwitch(t *testing.T) {
	ctx := context.Background()
	for _, toolchain := range []string{"local", "go1.26.11"} {
		env := append(os.Environ(), "GOTOOLCHAIN="+toolchain)
		want, err := Cmd{Env: env}.Output(ctx, "env", "GOVERSION")
		if err != nil {
			t.Logf("GOTOOLCHAIN=%s: %v (not available here)", toolchain, err)
			continue
		}
		bin := Cmd{Env: env}.binary(ctx, env)
		if bin == "go" {
			t.Fatalf("GOTOOLCHAIN=%s: binary not resolved", toolchain)
		}
		cmd := exec.Command(bin, "env", "GOVERSION")
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		got, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("GOTOOLCHAIN=%s: %s reports %q, the selection %q", toolchain, bin, got, want)
		}
	}
}

// TestArgvRunsTheSelectedToolchain: a command line built for another
// runner (the sandbox) starts the toolchain Cmd would run, with the args.
func TestArgvRunsTheSelectedToolchain(t *testing.T) {
	ctx := context.Background()
	c := Cmd{Env: append(os.Environ(), "GOTOOLCHAIN=local")}
	argv := c.Argv(ctx, "env", "GOVERSION")
	if len(argv) != 3 || argv[1] != "env" || argv[2] != "GOVERSION" {
		t.Fatalf("argv = %q, want the go command then env GOVERSION", argv)
	}
	if argv[0] != c.binary(ctx, c.Env) || argv[0] == "go" {
		t.Fatalf("argv[0] = %q, want the resolved toolchain's go command", argv[0])
	}
	want, err := c.Output(ctx, "env", "GOVERSION")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = c.Env
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%q printed %q, Cmd.Output %q", argv, got, want)
	}
}
