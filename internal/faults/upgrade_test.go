package faults

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// swapSnapshot is two allocations of one task each, running with their
// processes, as before a swap.
func swapSnapshot() Snapshot {
	running := TaskView{State: TaskRunning, Starts: 1}
	return Snapshot{
		Allocs: map[string]map[string]TaskView{
			"a1aaaaaaaa": {"task": running},
			"a2aaaaaaaa": {"task": running},
		},
		Procs: map[string][]TaskProc{
			TaskKey("a1aaaaaaaa", "task"): {{PID: 101, Start: 5000}},
			TaskKey("a2aaaaaaaa", "task"): {{PID: 102, Start: 5001}},
		},
	}
}

func cloneSnapshot(s Snapshot) Snapshot {
	out := Snapshot{Allocs: map[string]map[string]TaskView{}, Procs: map[string][]TaskProc{}}
	for id, tasks := range s.Allocs {
		out.Allocs[id] = map[string]TaskView{}
		for name, t := range tasks {
			out.Allocs[id][name] = t
		}
	}
	for k, ps := range s.Procs {
		out.Procs[k] = append([]TaskProc(nil), ps...)
	}
	return out
}

func TestCompareSwapKeepsEverything(t *testing.T) {
	before := swapSnapshot()
	s := CompareSwap(before, cloneSnapshot(before))
	if s.Allocs != 2 || s.Kept != 2 || s.Tasks != 2 || s.SamePIDs != 2 || len(s.Problems) != 0 {
		t.Fatalf("an unchanged snapshot: %+v", s)
	}
}

// TestCompareSwapFindsEachDifference changes one thing a swap must not
// change at a time: each is reported, naming the task or allocation.
func TestCompareSwapFindsEachDifference(t *testing.T) {
	for _, tc := range []struct {
		name       string
		change     func(*Snapshot)
		kept, same int
		want       string
	}{
		{"task restarted: new PID", func(s *Snapshot) { s.Procs[TaskKey("a1aaaaaaaa", "task")][0] = TaskProc{PID: 201, Start: 7000} }, 2, 1, "a1aaaaaa/task: process pid 101 before the swap, pid 201 after"},
		{"PID reused by a new process", func(s *Snapshot) { s.Procs[TaskKey("a1aaaaaaaa", "task")][0].Start = 7000 }, 2, 1, "a1aaaaaa/task: process pid 101 before the swap, pid 101 after"},
		{"process gone", func(s *Snapshot) { delete(s.Procs, TaskKey("a2aaaaaaaa", "task")) }, 2, 1, "a2aaaaaa/task: no process after the swap"},
		{"a second process", func(s *Snapshot) {
			k := TaskKey("a2aaaaaaaa", "task")
			s.Procs[k] = append(s.Procs[k], TaskProc{PID: 300, Start: 8000})
		}, 2, 1, "a2aaaaaa/task: process pid 102 before the swap, pid 102,300 after"},
		{"allocation gone", func(s *Snapshot) { delete(s.Allocs, "a2aaaaaaaa") }, 1, 2, "allocation a2aaaaaa no longer runs"},
		{"allocation added", func(s *Snapshot) {
			s.Allocs["a3aaaaaaaa"] = map[string]TaskView{"task": {State: TaskRunning, Starts: 1}}
		}, 2, 2, "allocation a3aaaaaa runs after the swap, not before"},
		{"task started again", func(s *Snapshot) {
			s.Allocs["a1aaaaaaaa"]["task"] = TaskView{State: TaskRunning, Starts: 2, Restarts: 1}
		}, 2, 2, "task task of a1aaaaaa started 1 more time(s), restarted 1 more time(s)"},
		{"failed restore", func(s *Snapshot) {
			s.Allocs["a1aaaaaaaa"]["task"] = TaskView{State: TaskRunning, Starts: 1, FailedRestores: 1}
		}, 2, 2, "task task of a1aaaaaa failed to restore 1 time(s)"},
		{"task pending", func(s *Snapshot) { s.Allocs["a1aaaaaaaa"]["task"] = TaskView{State: TaskPending, Starts: 1} }, 2, 2, `task task of a1aaaaaa is "pending"`},
		{"process of another task", func(s *Snapshot) { s.Procs[TaskKey("a9aaaaaaaa", "task")] = []TaskProc{{PID: 400, Start: 9}} }, 2, 2, "a9aaaaaa/task: process pid 400 after the swap, none before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := swapSnapshot()
			after := cloneSnapshot(before)
			tc.change(&after)
			s := CompareSwap(before, after)
			if s.Kept != tc.kept || s.SamePIDs != tc.same || s.Allocs != 2 || s.Tasks != 2 {
				t.Errorf("counts %+v, want kept %d, same PIDs %d", s, tc.kept, tc.same)
			}
			if len(s.Problems) != 1 || !strings.Contains(s.Problems[0], tc.want) {
				t.Errorf("problems %q, want one with %q", s.Problems, tc.want)
			}
		})
	}
}

func TestSnapshotMissing(t *testing.T) {
	s := swapSnapshot()
	if m := s.Missing(); len(m) != 0 {
		t.Fatalf("a stable snapshot: %q", m)
	}
	// A new allocation whose task has not started, and the process of a
	// stopped allocation not yet killed.
	s.Allocs["a3aaaaaaaa"] = map[string]TaskView{"task": {State: TaskPending}}
	s.Procs[TaskKey("a0aaaaaaaa", "task")] = []TaskProc{{PID: 99, Start: 1}}
	m := strings.Join(s.Missing(), "; ")
	for _, want := range []string{"no process for task a3aaaaaa/task", "process pid 99 of task a0aaaaaa/task, which does not run"} {
		if !strings.Contains(m, want) {
			t.Errorf("missing %q lacks %q", m, want)
		}
	}
}

// writeProc adds a process to a fake /proc.
func writeProc(t *testing.T, dir string, pid, comm string, environ []string, stat string) {
	t.Helper()
	p := filepath.Join(dir, pid)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"comm":    comm + "\n",
		"environ": strings.Join(environ, "\x00") + "\x00",
		"stat":    stat,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(p, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stat is a /proc/<pid>/stat line with the given command and start time
// (the 22nd field).
func stat(pid, comm, start string) string {
	fields := []string{pid, "(" + comm + ")", "S"}
	for i := 4; i <= 21; i++ {
		fields = append(fields, "0")
	}
	fields = append(fields, start, "0", "0")
	return strings.Join(fields, " ") + "\n"
}

func TestReadTaskProcs(t *testing.T) {
	dir := t.TempDir()
	task := []string{"PATH=/bin", "NOMAD_ALLOC_ID=alloc-1", "NOMAD_TASK_NAME=task"}
	writeProc(t, dir, "101", "sleep", task, stat("101", "sleep", "5000"))
	// The same task's second process, listed after the first.
	writeProc(t, dir, "99", "sleep", task, stat("99", "sleep", "4000"))
	writeProc(t, dir, "102", "sleep", []string{"NOMAD_ALLOC_ID=alloc-2", "NOMAD_TASK_NAME=web"}, stat("102", "sleep", "5001"))
	// Not tasks: an executor (another command) with the task's
	// environment, a sleep without it, a sleep of no task name.
	writeProc(t, dir, "200", "nomad", task, stat("200", "nomad", "10"))
	writeProc(t, dir, "201", "sleep", []string{"PATH=/bin"}, stat("201", "sleep", "11"))
	writeProc(t, dir, "202", "sleep", []string{"NOMAD_ALLOC_ID=alloc-3"}, stat("202", "sleep", "12"))
	if err := os.MkdirAll(filepath.Join(dir, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTaskProcs(dir, "sleep")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]TaskProc{
		TaskKey("alloc-1", "task"): {{PID: 99, Start: 4000}, {PID: 101, Start: 5000}},
		TaskKey("alloc-2", "web"):  {{PID: 102, Start: 5001}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, ps := range want {
		if !sameProcs(got[k], ps) {
			t.Errorf("%s: %v, want %v", k, got[k], ps)
		}
	}
	if _, err := ReadTaskProcs(filepath.Join(dir, "nope"), "sleep"); err == nil {
		t.Error("a missing process table read without error")
	}
}

func TestProcStart(t *testing.T) {
	// A command name with spaces and parentheses of its own.
	got, err := procStart([]byte(stat("7", "we(ird) )name", "123456")))
	if err != nil || got != 123456 {
		t.Fatalf("procStart: %d, %v", got, err)
	}
	for _, bad := range []string{"7 (sleep S 1 2", "no parenthesis", "7 (sleep) S " + strings.Repeat("x ", 25)} {
		if _, err := procStart([]byte(bad)); err == nil {
			t.Errorf("procStart(%q) accepted", bad)
		}
	}
}

func TestRestoreErrors(t *testing.T) {
	const (
		running  = "0b1c2d3e-0000-4000-8000-000000000001"
		terminal = "0b1c2d3e-0000-4000-8000-000000000002"
	)
	log := []byte(`    2026-12-02T03:10:00.000Z [INFO]  client: started client: node_id=9b1c2d3e-0000-4000-8000-00000000000f
    2026-12-02T03:10:00.100Z [ERROR] client: error restoring alloc: error="failed to decode" alloc_id=` + running + `
    2026-12-02T03:10:00.200Z [WARN]  client: found an alloc without any local state, skipping restore: alloc_id=` + running + `
    2026-12-02T03:10:00.300Z [WARN]  client.alloc_runner.task_runner.task_hook.logmon: failed to reattach to logmon process: alloc_id=` + running + ` task=task error="Reattachment process not found"
    2026-12-02T03:10:00.400Z [ERROR] client.driver_mgr.raw_exec: failed to reattach to executor: driver=raw_exec error="EOF" task_id=` + running + `/task/1a2b3c4d
    2026-12-02T03:10:00.450Z [ERROR] client.driver_mgr.raw_exec: failed to reattach to executor: driver=raw_exec error="Reattachment process not found" task_id=` + terminal + `/task/5e6f7a8b
    2026-12-02T03:10:00.500Z [INFO]  client.alloc_runner.task_runner: task failed to restore; waiting to contact server before restarting: alloc_id=` + running + ` task=task
    2026-12-02T03:10:00.600Z [WARN]  client.state_mgr: deleting unexpected state entry for allocation: alloc_id=` + terminal + ` alloc_id=` + running + `
    2026-12-02T03:10:00.700Z [ERROR] client: failed to restore state: error="bolt: timeout"
    2026-12-02T03:10:01.000Z [INFO]  client: node registration complete
panic: runtime error: invalid memory address or nil pointer dereference
`)
	errs, other := RestoreErrors(log, map[string]bool{terminal: true})
	want := []string{"error restoring alloc", "without any local state", "failed to reattach to logmon", "failed to reattach to executor: driver=raw_exec error=\"EOF\"",
		"task failed to restore", "deleting unexpected", "failed to restore state", "panic: runtime error"}
	if len(errs) != len(want) {
		t.Fatalf("got %d lines, want %d: %q", len(errs), len(want), errs)
	}
	for i, w := range want {
		if !strings.Contains(errs[i], w) {
			t.Errorf("line %d %q, want %q", i, errs[i], w)
		}
	}
	// Only the line that names nothing but a terminal allocation is set
	// aside; with no allocation in terminal it counts too.
	if len(other) != 1 || !strings.Contains(other[0], terminal+"/task") {
		t.Errorf("other %q, want the terminal allocation's reattach line", other)
	}
	if errs, _ := RestoreErrors(log, nil); len(errs) != len(want)+1 {
		t.Errorf("without terminal allocations: %d errors, want %d", len(errs), len(want)+1)
	}
	clean := []byte("    [INFO]  client: node registration complete\n    [INFO]  client.alloc_runner.task_runner: Task event: msg=\"Task started by client\"\n")
	if errs, other := RestoreErrors(clean, nil); len(errs)+len(other) != 0 {
		t.Errorf("a clean log: %q, %q", errs, other)
	}
}

func okStep() UpgradeStep {
	s := 3.0
	return UpgradeStep{From: "v1.5.3", To: "fork", Swap: Swap{Allocs: 6, Kept: 6, Tasks: 6, SamePIDs: 6}, ReadySeconds: &s, UpdateVersion: 1, UpdateSeconds: &s}
}

func TestUpgradeStepOK(t *testing.T) {
	if s := okStep(); !s.OK() {
		t.Fatalf("%+v not ok", s)
	}
	for name, change := range map[string]func(*UpgradeStep){
		"an allocation lost":    func(s *UpgradeStep) { s.Kept = 5 },
		"a task restarted":      func(s *UpgradeStep) { s.SamePIDs = 5 },
		"no processes":          func(s *UpgradeStep) { s.Tasks, s.SamePIDs = 0, 0 },
		"no allocations":        func(s *UpgradeStep) { *s = UpgradeStep{ReadySeconds: s.ReadySeconds, UpdateSeconds: s.UpdateSeconds} },
		"a restore error":       func(s *UpgradeStep) { s.LogErrors = []string{"error restoring alloc"} },
		"a problem":             func(s *UpgradeStep) { s.Problems = []string{"x"} },
		"node never ready":      func(s *UpgradeStep) { s.ReadySeconds = nil },
		"update never deployed": func(s *UpgradeStep) { s.UpdateSeconds = nil },
	} {
		s := okStep()
		change(&s)
		if s.OK() {
			t.Errorf("%s: ok", name)
		}
	}
}

func TestUpgradeResultOK(t *testing.T) {
	ok := Result{Fault: "upgrade", Steps: []UpgradeStep{okStep(), okStep(), okStep()}, Verdict: Verdict{Checked: 6}}
	if !ok.OK() {
		t.Fatal("a clean upgrade run not ok")
	}
	bad := okStep()
	bad.SamePIDs = 0
	for name, r := range map[string]Result{
		"two swaps only":  {Fault: "upgrade", Steps: []UpgradeStep{okStep(), okStep()}, Verdict: Verdict{Checked: 6}},
		"a bad swap":      {Fault: "upgrade", Steps: []UpgradeStep{okStep(), bad, okStep()}, Verdict: Verdict{Checked: 6}},
		"a lost update":   {Fault: "upgrade", Steps: ok.Steps, Verdict: Verdict{Checked: 6, Lost: []Finding{{Alloc: "a"}}}},
		"nothing checked": {Fault: "upgrade", Steps: ok.Steps},
		"unchecked":       {Fault: "upgrade", Steps: ok.Steps, Verdict: Verdict{Checked: 6, Unchecked: 1}},
		"an error":        {Fault: "upgrade", Steps: ok.Steps, Verdict: Verdict{Checked: 6}, Error: "boom"},
	} {
		if r.OK() {
			t.Errorf("%s: ok", name)
		}
	}
}

// TestUpgradeControlOK: the control's run is ok only when the first swap
// reports the killed task's allocation and nothing else.
func TestUpgradeControlOK(t *testing.T) {
	const killed = "0b1c2d3e-0000-4000-8000-000000000001"
	found := okStep()
	found.SamePIDs = 5
	found.Problems = []string{"allocation 0b1c2d3e no longer runs on the servers", "task 0b1c2d3e/task: no process after the swap (before: pid 101)"}
	ok := Result{Fault: "upgrade-control", Killed: TaskKey(killed, "task"), Steps: []UpgradeStep{found, okStep(), okStep()}, Verdict: Verdict{Checked: 6}}
	if !ok.OK() {
		t.Fatal("the control's run that found the killed task is not ok")
	}
	other := found
	other.Problems = append([]string{"task 99999999/task: no process after the swap"}, found.Problems[1:]...)
	otherLog := found
	otherLog.LogErrors = []string{"[ERROR] client: error restoring alloc: alloc_id=99999999-0000"}
	two := found
	two.SamePIDs = 4
	for name, steps := range map[string][]UpgradeStep{
		"nothing found":         {okStep(), okStep(), okStep()},
		"another task found":    {other, okStep(), okStep()},
		"another log error":     {otherLog, okStep(), okStep()},
		"two processes gone":    {two, okStep(), okStep()},
		"a later swap not ok":   {found, found, okStep()},
		"the control swap only": {found},
	} {
		r := ok
		r.Steps = steps
		if r.OK() {
			t.Errorf("%s: ok", name)
		}
	}
	r := ok
	r.Killed = ""
	if r.OK() {
		t.Error("no killed task: ok")
	}
}

// TestRunnerPairBinaries: the upgrade and mixed scenarios run for the
// fork and the variants only, each beside the upstream binary, and are
// skipped without one.
func TestRunnerPairBinaries(t *testing.T) {
	bins := []experiment.Binary{{Label: "v1.5.3"}, {Label: experiment.ForkLabel}, {Label: "v1.6.1"}, {Label: "every-tick", Variant: true}}
	up := &experiment.Binary{Label: "v1.5.3"}
	r := &Runner{Binaries: bins, Upstream: up}
	upgrade, _ := LookupFault("upgrade")
	mixed, _ := LookupFault("mixed")
	plain, _ := LookupFault("client-restart")
	labels := func(bs []experiment.Binary) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Label)
		}
		return strings.Join(out, ",")
	}
	for _, f := range []Fault{upgrade, mixed} {
		if got := labels(r.binariesOf(f)); got != "fork,every-tick" {
			t.Errorf("%s runs for %s", f.Name, got)
		}
	}
	if got := labels(r.binariesOf(plain)); got != "v1.5.3,fork,v1.6.1,every-tick" {
		t.Errorf("client-restart runs for %s", got)
	}
	r.Upstream = nil
	if got := r.binariesOf(upgrade); len(got) != 0 {
		t.Errorf("without upstream, upgrade runs for %v", got)
	}
	if !upgrade.Pair() || !mixed.Pair() || plain.Pair() {
		t.Error("Pair")
	}
}

func TestWriteTableUpgrade(t *testing.T) {
	back := okStep()
	back.From, back.To, back.UpdateVersion = "fork", "v1.5.3", 2
	bad := okStep()
	bad.From, bad.To, bad.SamePIDs = "fork", "v1.5.3", 5
	bad.Problems = []string{"task 01234567/task: process pid 101 before the swap, pid 201 after"}
	bad.LogErrors = []string{"[ERROR] client: error restoring alloc"}
	back.TerminalLogErrors = []string{"[ERROR] client.driver_mgr.raw_exec: failed to reattach to executor"}
	control := back
	control.From, control.UpdateVersion = "v1.5.3", 3
	rep := &Report{
		Header: experiment.Header{Date: time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC), Machine: "2 cores"}, Count: 30,
		Faults: []string{"upgrade"},
		Results: []Result{
			{Fault: "upgrade", Label: "fork", Upstream: "v1.5.3", Count: 6, Steps: []UpgradeStep{okStep(), back, control}, Verdict: Verdict{Checked: 6}},
			{Fault: "upgrade", Label: "variant", Upstream: "v1.5.3", Count: 6, Steps: []UpgradeStep{okStep(), bad, control}, Verdict: Verdict{Checked: 6}},
		},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// The control's first swap found the killed task: the run is ok.
	found := okStep()
	found.SamePIDs = 5
	found.Problems = []string{"task 0b1c2d3e/task: no process after the swap (before: pid 101)"}
	ctl := &Report{Faults: []string{"upgrade-control"}, Results: []Result{{Fault: "upgrade-control", Label: "fork", Upstream: "v1.5.3", Count: 6,
		Killed: TaskKey("0b1c2d3e-0000-4000-8000-000000000001", "task"), Steps: []UpgradeStep{found, back, control}, Verdict: Verdict{Checked: 6}}}}
	var cb bytes.Buffer
	if err := WriteTable(&cb, ctl); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"killed task found", "fork: killed the process of task 0b1c2d3e/task", "1 run(s) in 0 min; 0 not ok"} {
		if !strings.Contains(cb.String(), want) {
			t.Errorf("control table lacks %q:\n%s", want, cb.String())
		}
	}
	for _, want := range []string{
		"job count 30, 3 servers and 3 clients (multi topology); upgrade scenarios: 6 allocations, 3 servers and 1 client\n",
		"upgrade: in-place upgrade and back",
		"v1.5.3 → fork", "fork → v1.5.3", "v1.5.3 → v1.5.3", "6/6", "5/6", "NOT OK",
		"fork: fork → v1.5.3: 1 log line(s) of allocations in terminal (not counted), e.g. [ERROR] client.driver_mgr.raw_exec: failed to reattach",
		"fork (servers v1.5.3, 6 allocations): 3 swap(s); then 0 lost updates, 0 duplicate runs, 6 checked against the client's stored state: ok",
		"variant: fork → v1.5.3: task 01234567/task: process pid 101",
		"variant: fork → v1.5.3: log: [ERROR] client: error restoring alloc",
		"2 run(s)", "1 not ok",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestWriteTableFaults asserts that each fault's table holds the runs of
// that fault only, with the unchecked allocations beside the checked.
func TestWriteTableFaults(t *testing.T) {
	rep := &Report{
		Faults: []string{"leader-kill", "partition"},
		Results: []Result{
			{Fault: "leader-kill", Label: "fork", Verdict: Verdict{Checked: 7, Unchecked: 2}},
			{Fault: "partition", Label: "variant", Verdict: Verdict{Checked: 5}},
		},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lk, part := strings.Index(out, "\nleader-kill"), strings.Index(out, "\npartition")
	if lk < 0 || part < lk {
		t.Fatalf("no leader-kill then partition section:\n%s", out)
	}
	if s := out[lk:part]; !strings.Contains(s, "7 (+2 unchecked)") || strings.Contains(s, "variant") {
		t.Errorf("leader-kill section:\n%s", s)
	}
	if s := out[part:]; !strings.Contains(s, "variant") || strings.Contains(s, "fork") || strings.Contains(s, "unchecked") {
		t.Errorf("partition section:\n%s", s)
	}
}
