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
	"strconv"
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
		if rerr == nil && json.Unmarshal(old, &h) == nil && h.PID > 0 && alive(h.PID) && isNomadfork(h.PID) && !startedAfter(h.PID, h.Started) {
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
	if pid == 1 {
		// init, or a container's entry point: never the holder of a
		// lock it did not take running as pid 1 of this namespace, and
		// a lock naming it was written elsewhere (another namespace).
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		// Another user's process: its command line is readable.
		cmdline, cerr := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if cerr != nil {
			return true // cannot tell: assume it does
		}
		return strings.Contains(string(cmdline), "nomadfork")
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

// startedAfter reports whether the process pid started after the lock was
// taken at t (a second's slack for the clocks): then its pid was reused
// and it is not the lock's holder. False when it cannot tell.
func startedAfter(pid int, t time.Time) bool {
	if t.IsZero() {
		return false
	}
	start, ok := processStart(pid)
	return ok && start.After(t.Add(time.Second))
}

// processStart returns when the process pid started, from /proc: its start
// in clock ticks after boot (field 22 of /proc/<pid>/stat) and the boot
// time (btime of /proc/stat).
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return time.Time{}, false
	}
	// After "pid (comm)": state is field 3, starttime field 22.
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	sys, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(sys), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			// USER_HZ is 100 on every Linux ABI Go supports.
			const hz = 100
			return time.Unix(boot, 0).Add(time.Duration(ticks) * time.Second / hz), true
		}
	}
	return time.Time{}, false
}
