package gocmd

import (
	"bytes"
	"context"
	"errors"
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
