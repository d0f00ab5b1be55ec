// Package lockfile is the tool's own lock: one mutating command of the tool
// at a time per repository. The lock file records the holder's pid and
// verb; a lock whose process is gone is stale and is cleared.
package lockfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Holder is what the lock file records.
type Holder struct {
	PID     int       `json:"pid"`
	Verb    string    `json:"verb"`
	Started time.Time `json:"started"`
}

// HeldError is returned when another live process holds the lock.
type HeldError struct {
	File   string
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("the lock %s is held by %s (pid %d), running since %s", e.File, e.Holder.Verb, e.Holder.PID, e.Holder.Started.Local().Format("15:04:05"))
}

// Stale is a lock Acquire removed: its file, and its holder (PID 0 when
// the file was unreadable).
type Stale struct {
	File   string
	Holder Holder
}

// Acquire takes the lock at file for verb. A lock left by a process that no
// longer runs is removed, and removed is called with it. The returned
// function releases the lock.
func Acquire(file, verb string, removed func(Stale)) (release func(), err error) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return nil, fmt.Errorf("taking the lock: %w", err)
	}
	me := Holder{PID: os.Getpid(), Verb: verb, Started: time.Now().UTC()}
	data, err := json.Marshal(me)
	if err != nil {
		return nil, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(append(data, '\n'))
			cerr := f.Close()
			if werr != nil || cerr != nil {
				os.Remove(file)
				return nil, fmt.Errorf("taking the lock: %w", errors.Join(werr, cerr))
			}
			return func() { os.Remove(file) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("taking the lock: %w", err)
		}
		var h Holder
		old, rerr := os.ReadFile(file)
		if rerr != nil && errors.Is(rerr, os.ErrNotExist) {
			continue // released meanwhile
		}
		if rerr == nil && json.Unmarshal(old, &h) == nil && h.PID > 0 && alive(h.PID) && isNomadfork(h.PID) {
			return nil, &HeldError{File: file, Holder: h}
		}
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("removing stale lock: %w", err)
		}
		if h.PID <= 0 {
			h = Holder{}
		}
		removed(Stale{File: file, Holder: h})
	}
	return nil, fmt.Errorf("could not take the lock %s", file)
}

// isNomadfork reports whether pid runs this program (its executable's
// name, or one of its arguments, names nomadfork, or it runs the same
// executable): a pid the system reused for another program holds no lock.
func isNomadfork(pid int) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return true // cannot tell: assume it does
	}
	if self, err := os.Executable(); err == nil && filepath.Clean(self) == filepath.Clean(strings.TrimSuffix(exe, " (deleted)")) {
		return true
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.Contains(filepath.Base(exe), "nomadfork") || strings.Contains(string(cmdline), "nomadfork")
}

// alive reports whether a process with pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
