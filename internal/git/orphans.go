package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Process is a live git process the tool started.
type Process struct {
	PID int
	// Args are its command line after the program's name.
	Args []string
}

func (p Process) String() string {
	return fmt.Sprintf("git %s (pid %d)", strings.Join(p.Args, " "), p.PID)
}

// BusyError is returned by WaitOrphans when git processes of an earlier
// nomadfork still run in a work tree after the wait.
type BusyError struct {
	Dir       string
	Processes []Process
	Waited    time.Duration
}

func (e *BusyError) Error() string {
	var names, pids []string
	for _, p := range e.Processes {
		names = append(names, p.String())
		pids = append(pids, strconv.Itoa(p.PID))
	}
	return fmt.Sprintf("%s of an earlier nomadfork, which was killed, still runs in %s after %s; wait for it to finish, or stop it (`kill %s`)",
		strings.Join(names, ", "), e.Dir, e.Waited.Round(time.Second), strings.Join(pids, " "))
}

// Orphans returns the live git processes the tool started (they carry its
// committer identity in their environment) whose working directory is the
// work tree dir. When a nomadfork is killed outright (SIGKILL), its git
// goes on as an orphan; undoing its step while it runs races with it.
// Only Linux's /proc tells; elsewhere it returns none.
func Orphans(dir string) []Process {
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	identity := []byte("GIT_COMMITTER_NAME=" + IdentityName + "\x00")
	var out []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		proc := filepath.Join("/proc", e.Name())
		// An exited process (a zombie an orphan's new parent may never
		// reap) has no working directory.
		if cwd, err := os.Readlink(filepath.Join(proc, "cwd")); err != nil || cwd != want {
			continue
		}
		args := cmdline(proc)
		if args == nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join(proc, "environ"))
		if err != nil || !bytes.Contains(append([]byte("\x00"), env...), append([]byte("\x00"), identity...)) {
			continue
		}
		out = append(out, Process{PID: pid, Args: args})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// cmdline returns the arguments of the process at proc if it runs git (a
// git binary, or a script named git), else nil.
func cmdline(proc string) []string {
	data, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil || len(data) == 0 {
		return nil
	}
	argv := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	for i := 0; i < len(argv) && i < 2; i++ {
		if filepath.Base(argv[i]) == "git" {
			return append([]string{}, argv[i+1:]...)
		}
	}
	return nil
}

// OrphanPoll is how often WaitOrphans looks again.
var OrphanPoll = 20 * time.Millisecond

// WaitOrphans waits until no git process of an earlier nomadfork runs in
// the work tree dir (see Orphans), for at most timeout: waiting is called
// once, with the processes, if there are any. It returns a *BusyError if
// some still run then, or the context's error.
func WaitOrphans(ctx context.Context, dir string, timeout time.Duration, waiting func([]Process)) error {
	procs := Orphans(dir)
	if len(procs) == 0 {
		return nil
	}
	if waiting != nil {
		waiting(procs)
	}
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(OrphanPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return &BusyError{Dir: dir, Processes: procs, Waited: time.Since(start)}
		case <-tick.C:
			if procs = Orphans(dir); len(procs) == 0 {
				return nil
			}
		}
	}
}
