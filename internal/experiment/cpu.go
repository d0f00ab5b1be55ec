package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ClockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat; it is
// 100 on every Linux architecture Nomad supports.
const ClockTicks = 100

// ProcStat is the part of /proc/<pid>/stat the bench uses.
type ProcStat struct {
	PID  int
	PPID int
	// User and System are the process's own CPU times in clock ticks;
	// ChildUser and ChildSystem those of its waited-for children.
	User, System, ChildUser, ChildSystem uint64
}

// Self is the process's own CPU time in seconds.
func (s ProcStat) Self() float64 { return float64(s.User+s.System) / ClockTicks }

// Children is the CPU time of the process's reaped children in seconds.
func (s ProcStat) Children() float64 { return float64(s.ChildUser+s.ChildSystem) / ClockTicks }

// ParseProcStat parses the contents of /proc/<pid>/stat. The command name
// is in parentheses and may itself hold spaces and parentheses, so fields
// are counted from the last ')'.
func ParseProcStat(data string) (ProcStat, error) {
	var s ProcStat
	open := strings.IndexByte(data, '(')
	end := strings.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("malformed stat line %q", data)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(data[:open]))
	if err != nil {
		return s, fmt.Errorf("malformed pid in stat line %q", data)
	}
	s.PID = pid
	// Fields after the command: state(3) ppid(4) ... utime(14) stime(15)
	// cutime(16) cstime(17); rest[0] is field 3.
	rest := strings.Fields(data[end+1:])
	if len(rest) < 15 {
		return s, fmt.Errorf("short stat line %q", data)
	}
	nums := make([]uint64, 0, 5)
	for _, i := range []int{1, 11, 12, 13, 14} {
		n, err := strconv.ParseInt(rest[i], 10, 64)
		if err != nil {
			return s, fmt.Errorf("stat field %d of %q: %w", i+3, data, err)
		}
		if n < 0 {
			n = 0
		}
		nums = append(nums, uint64(n))
	}
	s.PPID = int(nums[0])
	s.User, s.System, s.ChildUser, s.ChildSystem = nums[1], nums[2], nums[3], nums[4]
	return s, nil
}

// ReadProcStat reads /proc/<pid>/stat under procRoot (normally "/proc").
func ReadProcStat(procRoot string, pid int) (ProcStat, error) {
	data, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return ProcStat{}, err
	}
	return ParseProcStat(string(data))
}

// ProcTable is every process's stat, by pid.
type ProcTable map[int]ProcStat

// ReadProcTable reads the stat of every process under procRoot. Processes
// that exit while it reads are skipped.
func ReadProcTable(procRoot string) (ProcTable, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	t := ProcTable{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		s, err := ReadProcStat(procRoot, pid)
		if err != nil {
			continue
		}
		t[pid] = s
	}
	return t, nil
}

// CPU is the CPU seconds of a process: its own, and that of its whole tree
// (live descendants plus the reaped children its kernel counters hold).
type CPU struct {
	Self float64 `json:"self"`
	Tree float64 `json:"tree"`
}

// CPUOf returns the CPU seconds of pid and of its process tree.
func (t ProcTable) CPUOf(pid int) CPU {
	root, ok := t[pid]
	if !ok {
		return CPU{}
	}
	children := map[int][]int{}
	for p, s := range t {
		children[s.PPID] = append(children[s.PPID], p)
	}
	cpu := CPU{Self: root.Self()}
	seen := map[int]bool{}
	var walk func(p int)
	walk = func(p int) {
		if seen[p] {
			return
		}
		seen[p] = true
		s := t[p]
		cpu.Tree += s.Self() + s.Children()
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return cpu
}
