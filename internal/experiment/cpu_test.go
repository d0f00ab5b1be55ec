package experiment

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func statLine(pid int, comm string, ppid int, utime, stime, cutime, cstime int) string {
	return strconv.Itoa(pid) + " (" + comm + ") S " + strconv.Itoa(ppid) +
		" 1 1 0 -1 4194560 100 0 0 0 " +
		strconv.Itoa(utime) + " " + strconv.Itoa(stime) + " " + strconv.Itoa(cutime) + " " + strconv.Itoa(cstime) +
		" 20 0 12 0 1234 5678 90 18446744073709551615\n"
}

func TestParseProcStat(t *testing.T) {
	s, err := ParseProcStat(statLine(42, "nomad (agent) x", 7, 150, 50, 30, 20))
	if err != nil {
		t.Fatal(err)
	}
	if s.PID != 42 || s.PPID != 7 || s.User != 150 || s.System != 50 || s.ChildUser != 30 || s.ChildSystem != 20 {
		t.Errorf("parsed %+v", s)
	}
	if s.Self() != 2 || s.Children() != 0.5 {
		t.Errorf("Self %v Children %v", s.Self(), s.Children())
	}
	for _, bad := range []string{"", "12 nomad S", "x (a) S 1 2", "1 (a) S 1 1 0 -1 4 1 0 0 0 u s 0 0"} {
		if _, err := ParseProcStat(bad); err == nil {
			t.Errorf("no error for %q", bad)
		}
	}
}

func TestProcTableCPUOf(t *testing.T) {
	root := t.TempDir()
	write := func(pid int, line string) {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(1, statLine(1, "init", 0, 1, 1, 0, 0))
	write(10, statLine(10, "nomad", 1, 300, 100, 50, 50)) // client: 4 s own, 1 s reaped children
	write(11, statLine(11, "nomad", 10, 20, 10, 0, 0))    // logmon: 0.3 s
	write(12, statLine(12, "nomad", 10, 5, 5, 0, 0))      // logmon: 0.1 s
	write(13, statLine(13, "child", 12, 10, 0, 0, 0))     // grandchild: 0.1 s
	write(20, statLine(20, "other", 1, 1000, 0, 0, 0))
	if err := os.MkdirAll(filepath.Join(root, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "99"), 0o755); err != nil { // exited: no stat
		t.Fatal(err)
	}
	tab, err := ReadProcTable(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 6 {
		t.Fatalf("read %d processes", len(tab))
	}
	cpu := tab.CPUOf(10)
	if cpu.Self != 4 || math.Abs(cpu.Tree-5.5) > 1e-9 {
		t.Errorf("CPUOf(10) = %+v, want self 4, tree 5.5", cpu)
	}
	if got := tab.CPUOf(404); got != (CPU{}) {
		t.Errorf("missing pid: %+v", got)
	}
}
