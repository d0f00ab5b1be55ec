package faults

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// The upgrade scenario's checks, without agents: what the servers and the
// sandbox's process table show before and after a client's binary is
// swapped on its data dir (Snapshot, CompareSwap), and the restore errors
// in the client's log (RestoreErrors).

// TaskProc is a task's process: its PID and its start time (clock ticks
// after boot, /proc/<pid>/stat's 22nd field), so a PID the kernel reused
// for a new process does not count as the same process.
type TaskProc struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"`
}

// Snapshot is a job version's running allocations as the servers hold
// them — alloc ID to task name to task view — and their tasks' processes,
// by TaskKey.
type Snapshot struct {
	Allocs map[string]map[string]TaskView `json:"allocs"`
	Procs  map[string][]TaskProc          `json:"procs"`
}

// TaskKey names a task of an allocation in Snapshot.Procs.
func TaskKey(allocID, task string) string { return allocID + "/" + task }

// Swap is what CompareSwap found.
type Swap struct {
	// Allocs counts the allocations running before the swap, Kept those of
	// them the servers hold running after it with the same ID.
	Allocs int `json:"allocs"`
	Kept   int `json:"kept"`
	// Tasks counts the task processes before the swap, SamePIDs those
	// still running after it: same PID, same start time.
	Tasks    int `json:"tasks"`
	SamePIDs int `json:"same_pids"`
	// Problems describes every difference.
	Problems []string `json:"problems,omitempty"`
}

// CompareSwap compares the snapshots taken before and after a client's
// agent was stopped and started again (with another binary): the same
// allocations must run, with no task started, restarted or failing to
// restore in between, and every task process must be the same one.
func CompareSwap(before, after Snapshot) Swap {
	var s Swap
	problem := func(format string, args ...any) { s.Problems = append(s.Problems, fmt.Sprintf(format, args...)) }
	for _, id := range sortedKeys(before.Allocs) {
		s.Allocs++
		tasks, ok := after.Allocs[id]
		if !ok {
			problem("allocation %s no longer runs on the servers", experiment.ShortID(id))
			continue
		}
		s.Kept++
		for _, name := range sortedKeys(before.Allocs[id]) {
			b, a := before.Allocs[id][name], tasks[name]
			switch {
			case a.State != TaskRunning:
				problem("task %s of %s is %q on the servers", name, experiment.ShortID(id), a.State)
			case a.Starts != b.Starts || a.Restarts != b.Restarts:
				problem("task %s of %s started %d more time(s), restarted %d more time(s)", name, experiment.ShortID(id), a.Starts-b.Starts, int64(a.Restarts)-int64(b.Restarts))
			case a.FailedRestores != b.FailedRestores:
				problem("task %s of %s failed to restore %d time(s)", name, experiment.ShortID(id), a.FailedRestores-b.FailedRestores)
			}
		}
	}
	for _, id := range sortedKeys(after.Allocs) {
		if _, ok := before.Allocs[id]; !ok {
			problem("allocation %s runs after the swap, not before", experiment.ShortID(id))
		}
	}
	for _, key := range sortedKeys(before.Procs) {
		b := before.Procs[key]
		s.Tasks++
		a, ok := after.Procs[key]
		switch {
		case !ok:
			problem("task %s: no process after the swap (before: %s)", shortKey(key), procs(b))
		case !sameProcs(a, b):
			problem("task %s: process %s before the swap, %s after", shortKey(key), procs(b), procs(a))
		default:
			s.SamePIDs++
		}
	}
	for _, key := range sortedKeys(after.Procs) {
		if _, ok := before.Procs[key]; !ok {
			problem("task %s: process %s after the swap, none before", shortKey(key), procs(after.Procs[key]))
		}
	}
	return s
}

// Missing lists the running allocations' tasks that have no process and
// the processes of tasks of no running allocation: a snapshot is stable
// (its allocations' tasks started, the stopped ones' gone) when it is
// empty.
func (s Snapshot) Missing() []string {
	var out []string
	for _, id := range sortedKeys(s.Allocs) {
		for _, name := range sortedKeys(s.Allocs[id]) {
			if len(s.Procs[TaskKey(id, name)]) == 0 {
				out = append(out, "no process for task "+shortKey(TaskKey(id, name)))
			}
		}
	}
	for _, key := range sortedKeys(s.Procs) {
		id, name, _ := strings.Cut(key, "/")
		if _, ok := s.Allocs[id][name]; !ok {
			out = append(out, fmt.Sprintf("process %s of task %s, which does not run on the servers", procs(s.Procs[key]), shortKey(key)))
		}
	}
	return out
}

func sameProcs(a, b []TaskProc) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func procs(ps []TaskProc) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, strconv.Itoa(p.PID))
	}
	return "pid " + strings.Join(parts, ",")
}

func shortKey(key string) string {
	id, task, _ := strings.Cut(key, "/")
	return experiment.ShortID(id) + "/" + task
}

// ReadTaskProcs reads the process table under procDir (/proc) and returns
// the processes named comm that run a Nomad task, by TaskKey: those whose
// environment holds NOMAD_ALLOC_ID and NOMAD_TASK_NAME, as a driver sets
// them for the task it starts (its executor and logmon do not have them).
// A process that exits while it is read is skipped.
func ReadTaskProcs(procDir, comm string) (map[string][]TaskProc, error) {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil, fmt.Errorf("reading the process table: %w", err)
	}
	out := map[string][]TaskProc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		dir := filepath.Join(procDir, e.Name())
		name, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil || strings.TrimSpace(string(name)) != comm {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil {
			continue
		}
		alloc, task := environValue(environ, "NOMAD_ALLOC_ID"), environValue(environ, "NOMAD_TASK_NAME")
		if alloc == "" || task == "" {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		start, err := procStart(stat)
		if err != nil {
			return nil, fmt.Errorf("process %d: %w", pid, err)
		}
		key := TaskKey(alloc, task)
		out[key] = append(out[key], TaskProc{PID: pid, Start: start})
	}
	for _, ps := range out {
		sort.Slice(ps, func(i, j int) bool { return ps[i].PID < ps[j].PID })
	}
	return out, nil
}

func environValue(environ []byte, name string) string {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == name {
			return string(v)
		}
	}
	return ""
}

// procStart returns the start time of /proc/<pid>/stat: the 22nd field,
// counted after the command name in parentheses (which may hold spaces
// and parentheses itself).
func procStart(stat []byte) (uint64, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat %q", stat)
	}
	fields := strings.Fields(string(stat[i+1:]))
	// fields[0] is the 3rd field (state): the 22nd is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("stat has %d fields after the command, want 20 or more", len(fields))
	}
	return strconv.ParseUint(fields[19], 10, 64)
}

// restorePatterns are the client log's lines of a restore that did not
// go as it should (Nomad's own messages, matched without case): an
// allocation or task whose state could not be read or reattached, a
// state entry the client deleted, a panic.
var restorePatterns = []string{
	"error restoring alloc",
	"failed to restore",
	"failed to reattach",
	"without any local state",
	"error running alloc",
	"task failed to restore",
	"deleting unexpected",
	"panic:",
}

// uuidPattern matches the allocation IDs a log line names.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// RestoreErrors returns the lines of a client's log that report a restore
// problem. A line that names only allocations in terminal — allocations
// the servers hold stopped, whose tasks exited before the restart — goes
// to other instead: Nomad keeps a dead task's driver handle in the
// client's state, so every restart of an agent, upstream's too, logs that
// raw_exec could not reattach to their executors, which exited with their
// tasks.
func RestoreErrors(log []byte, terminal map[string]bool) (errs, other []string) {
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		lower := strings.ToLower(line)
		for _, p := range restorePatterns {
			if !strings.Contains(lower, p) {
				continue
			}
			ids := uuidPattern.FindAllString(lower, -1)
			onlyTerminal := len(ids) > 0
			for _, id := range ids {
				onlyTerminal = onlyTerminal && terminal[id]
			}
			if onlyTerminal {
				other = append(other, strings.TrimSpace(line))
			} else {
				errs = append(errs, strings.TrimSpace(line))
			}
			break
		}
	}
	return errs, other
}

// UpgradeStep is one swap of the upgraded client's binary, on its data
// dir, and the job update that follows it.
type UpgradeStep struct {
	From string `json:"from"` // the binaries' labels
	To   string `json:"to"`
	Swap
	// LogErrors are the restore problems in the client's log since the
	// new binary started; TerminalLogErrors those that name only
	// allocations in terminal (see RestoreErrors), which do not count.
	LogErrors         []string `json:"log_errors,omitempty"`
	TerminalLogErrors []string `json:"terminal_log_errors,omitempty"`
	// ReadySeconds is the time from the new binary's start until the
	// servers hold the node ready, with the new binary's version and
	// revision and a healthy raw_exec; nil when that never happened.
	ReadySeconds *float64 `json:"ready_seconds,omitempty"`
	// UpdateVersion is the job version registered after the swap;
	// UpdateSeconds the time until its deployment was successful, nil
	// when it was not.
	UpdateVersion uint64   `json:"update_version"`
	UpdateSeconds *float64 `json:"update_seconds,omitempty"`
}

// OK reports whether the swap kept every allocation and task process,
// the log shows no restore problem, the node came back ready and the
// update deployed.
func (s *UpgradeStep) OK() bool {
	return s.Allocs > 0 && s.Kept == s.Allocs && s.Tasks >= s.Allocs && s.SamePIDs == s.Tasks &&
		len(s.Problems) == 0 && len(s.LogErrors) == 0 && s.ReadySeconds != nil && s.UpdateSeconds != nil
}
