package lockfile

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestAcquireExcludesAndReleases(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out", "nomadfork.lock")
	release, err := Acquire(file, "apply", func(Stale) { t.Error("unexpected notice") })
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(file, "extract", func(Stale) {})
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Verb != "apply" || held.Holder.PID != os.Getpid() {
		t.Fatalf("second Acquire = %v, want held by apply", err)
	}
	release()
	release2, err := Acquire(file, "extract", func(Stale) {})
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
	var notices []Stale
	release, err := Acquire(file, "apply", func(s Stale) { notices = append(notices, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if len(notices) != 1 || notices[0].Holder.Verb != "rebase" || notices[0].Holder.PID != cmd.Process.Pid || notices[0].File != file {
		t.Errorf("notices = %+v", notices)
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
	var notices []Stale
	release, err := Acquire(file, "apply", func(s Stale) { notices = append(notices, s) })
	if err != nil {
		t.Fatalf("lock of a reused pid: %v", err)
	}
	defer release()
	if len(notices) != 1 || notices[0].Holder.PID != cmd.Process.Pid {
		t.Errorf("notices = %+v", notices)
	}
}

// A lock naming pid 1 (written in another pid namespace, or by hand) is
// stale: pid 1 never holds the tool's lock, and the advice to `kill 1`
// was wrong.
func TestAcquireClearsLockOfPid1(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nomadfork.lock")
	data, _ := json.Marshal(Holder{PID: 1, Verb: "apply", Started: time.Now().UTC()})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := Acquire(file, "apply", func(Stale) {})
	if err != nil {
		t.Fatalf("lock naming pid 1: %v", err)
	}
	release()
}

// A lock whose pid now belongs to a process started after the lock was
// taken (the pid reused, even by another nomadfork) is stale.
func TestAcquireClearsLockOfProcessStartedLater(t *testing.T) {
	file := filepath.Join(t.TempDir(), "nomadfork.lock")
	// This process runs the same executable (isNomadfork says yes) and
	// started after the lock's date.
	data, _ := json.Marshal(Holder{PID: os.Getpid(), Verb: "apply", Started: time.Now().Add(-24 * time.Hour).UTC()})
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	release, err := Acquire(file, "apply", func(Stale) {})
	if err != nil {
		t.Fatalf("lock dated before its pid's process started: %v", err)
	}
	release()
}
