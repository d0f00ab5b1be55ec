package lockfile

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAcquireExcludesAndReleases(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out", "nomadfork.lock")
	release, err := Acquire(file, "apply", func(string) { t.Error("unexpected notice") })
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(file, "extract", func(string) {})
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Verb != "apply" || held.Holder.PID != os.Getpid() {
		t.Fatalf("second Acquire = %v, want held by apply", err)
	}
	release()
	release2, err := Acquire(file, "extract", func(string) {})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	release2()
}

func TestAcquireClearsStaleLock(t *testing.T) {
	// A process that has exited: its pid is free.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	file := filepath.Join(t.TempDir(), "nomadfork.lock")
	data, _ := json.Marshal(Holder{PID: cmd.Process.Pid, Verb: "rebase"})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var notices []string
	release, err := Acquire(file, "apply", func(s string) { notices = append(notices, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(notices) != 1 || !strings.Contains(notices[0], "stale lock") || !strings.Contains(notices[0], "nomadfork rebase") {
		t.Errorf("notices = %q", notices)
	}
}

// A lock naming a live process of another program (its pid reused) is
// stale too.
func TestAcquireClearsLockOfReusedPid(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	file := filepath.Join(t.TempDir(), "nomadfork.lock")
	data, _ := json.Marshal(Holder{PID: cmd.Process.Pid, Verb: "rebase"})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var notices []string
	release, err := Acquire(file, "apply", func(s string) { notices = append(notices, s) })
	if err != nil {
		t.Fatalf("lock of a reused pid: %v", err)
	}
	defer release()
	if len(notices) != 1 || !strings.Contains(notices[0], "stale lock") {
		t.Errorf("notices = %q", notices)
	}
}
