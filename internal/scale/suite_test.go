package scale

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func TestParseWorkloads(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"rolling,batch,drain", "rolling,batch,drain", ""},
		{" rolling , drain,drain", "rolling,drain", ""},
		{"batch", "", "rolling must be one"},
		{"rolling,reschedule", "", `unknown workload "reschedule"`},
	} {
		got, err := parseWorkloads(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseWorkloads(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("parseWorkloads(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	sc := DefaultScenario
	if got := strings.Join(sc.Phases(), ","); got != "initial,rolling,batch,drain,settle" {
		t.Errorf("default phases %s", got)
	}
	if got := strings.Join(SmokeScenario.Phases(), ","); got != "initial,rolling,settle" {
		t.Errorf("smoke phases %s", got)
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"100,250,400", []int{100, 250, 400}, false},
		{"400, 100,100,250", []int{100, 250, 400}, false},
		{"10", []int{10}, false},
		{"", nil, true},
		{"10,x", nil, true},
		{"0,10", nil, true},
	} {
		got, err := ParseSizes(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
	if got := FormatSizes(DefaultSizes); got != "100,250,400" {
		t.Errorf("FormatSizes = %s", got)
	}
}

func TestSized(t *testing.T) {
	for _, tc := range []struct {
		n, maxParallel int
		keep           bool
		want           int
	}{
		{250, 60, false, 62}, // 250 × 10 / 10 jobs = 250 a job: a quarter
		{10, 60, false, 2},
		{3, 60, false, 1},
		{100, 60, true, 60},
	} {
		sc := DefaultScenario
		sc.MaxParallel = tc.maxParallel
		got := sc.Sized(tc.n, tc.keep)
		if got.Nodes != tc.n || got.MaxParallel != tc.want {
			t.Errorf("Sized(%d, %v): %d nodes, max_parallel %d; want %d", tc.n, tc.keep, got.Nodes, got.MaxParallel, tc.want)
		}
	}
}

// TestPlan interleaves the builds round by round at every size, rotated
// as the bench rotates its binaries.
func TestPlan(t *testing.T) {
	r := &Runner{Scenario: DefaultScenario, Sizes: []int{10, 20}, Rounds: 2,
		Builds: []Build{{Label: "fork"}, {Label: "every-tick"}, {Label: "seed"}}}
	var got []string
	for _, c := range r.plan() {
		got = append(got, fmt.Sprintf("r%d %d %s %s", c.round, c.Nodes, r.Builds[c.build].Label, c.dir(r.Builds[c.build].Label)))
	}
	want := []string{
		"r1 10 fork fork-n10-r1", "r1 10 every-tick every-tick-n10-r1", "r1 10 seed seed-n10-r1",
		"r1 20 fork fork-n20-r1", "r1 20 every-tick every-tick-n20-r1", "r1 20 seed seed-n20-r1",
		"r2 10 every-tick every-tick-n10-r2", "r2 10 seed seed-n10-r2", "r2 10 fork fork-n10-r2",
		"r2 20 every-tick every-tick-n20-r2", "r2 20 seed seed-n20-r2", "r2 20 fork fork-n20-r2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One size, one round (the smoke test): the scenario as given, the
	// run directory the label.
	one := &Runner{Scenario: SmokeScenario, Builds: []Build{{Label: "fork"}}}
	p := one.plan()
	if len(p) != 1 || p[0].Scenario != SmokeScenario || p[0].dir("fork") != "fork" {
		t.Errorf("one run: %+v", p)
	}
}

func TestBatchTaskCPU(t *testing.T) {
	for _, tc := range []struct {
		free int64
		want int
		err  bool
	}{
		{4000, 2001, false}, // two would need 4002
		{3, 2, false},
		{1, 0, true},
		{-1, 0, true},
	} {
		got, err := batchTaskCPU(tc.free)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("batchTaskCPU(%d) = %d, %v; want %d", tc.free, got, err, tc.want)
		}
		if err == nil && 2*int64(got) <= tc.free {
			t.Errorf("a node of %d MHz fits two tasks of %d", tc.free, got)
		}
	}
}

func TestBatchDone(t *testing.T) {
	allocs := []cluster.AllocStub{
		{ID: "a1", ClientStatus: "complete", ModifyTime: 30},
		{ID: "a2", ClientStatus: "complete", ModifyTime: 50},
		{ID: "a3", ClientStatus: "running", ModifyTime: 90},
		{ID: "a4", ClientStatus: "pending"},
	}
	complete, last, failed := batchDone(allocs)
	if complete != 2 || last != 50 || failed != "" {
		t.Errorf("batchDone = %d, %d, %q", complete, last, failed)
	}
	allocs[2].ClientStatus = "failed"
	if _, _, failed := batchDone(allocs); failed != "allocation a3 is failed" {
		t.Errorf("failed: %q", failed)
	}
}

func simNode(id, name string, drain bool) cluster.NodeStub {
	return cluster.NodeStub{ID: id, Name: name, Status: "ready", Drain: drain,
		Drivers: map[string]*cluster.DriverInfo{"mock_driver": {Detected: true, Healthy: true}}}
}

func TestDrainTargets(t *testing.T) {
	nodes := []cluster.NodeStub{simNode("n3", "nodesim-3", false), simNode("n1", "nodesim-1", false),
		simNode("n2", "nodesim-2", false), {ID: "s", Name: "server", Status: "ready"}}
	allocs := []cluster.AllocStub{
		{NodeID: "n1", DesiredStatus: "run", ClientStatus: "running"},
		{NodeID: "n1", DesiredStatus: "run", ClientStatus: "running"},
		{NodeID: "n1", DesiredStatus: "stop", ClientStatus: "complete"},
		{NodeID: "n2", DesiredStatus: "run", ClientStatus: "running"},
		{NodeID: "n3", DesiredStatus: "run", ClientStatus: "running"},
	}
	for _, tc := range []struct {
		k    int
		ids  []string
		held int
	}{
		{1, []string{"n1"}, 2},
		{2, []string{"n1", "n2"}, 3},
		{9, []string{"n1", "n2", "n3"}, 4},
	} {
		ids, held := drainTargets(nodes, allocs, tc.k)
		if !slices.Equal(ids, tc.ids) || held != tc.held {
			t.Errorf("drainTargets(%d) = %v, %d; want %v, %d", tc.k, ids, held, tc.ids, tc.held)
		}
	}
	if got := (Scenario{Nodes: 10}).DrainNodes(); got != 2 {
		t.Errorf("DrainNodes of 10 = %d", got)
	}
	if got := (Scenario{Nodes: 3}).DrainNodes(); got != 1 {
		t.Errorf("DrainNodes of 3 = %d", got)
	}
}

func TestDrainDone(t *testing.T) {
	done := []cluster.NodeStub{simNode("n1", "nodesim-1", false), simNode("n2", "nodesim-2", true)}
	for _, tc := range []struct {
		name   string
		nodes  []cluster.NodeStub
		allocs []cluster.AllocStub
		want   string
	}{
		{"drained", done[:1], []cluster.AllocStub{{ID: "a1", NodeID: "n1", ClientStatus: "complete"}, {ID: "a2", NodeID: "n2", ClientStatus: "running"}}, ""},
		{"still draining", done, nil, "node nodesim-2 is still draining"},
		{"still running", done[:1], []cluster.AllocStub{{ID: "a1", NodeID: "n1", ClientStatus: "running"}}, "allocation a1 is still running on a drained node"},
	} {
		drained := []string{"n1"}
		if tc.name == "still draining" {
			drained = []string{"n1", "n2"}
		}
		if got := drainDone(tc.nodes, tc.allocs, drained); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// suiteReport is a report of three sizes, two rounds, three builds: fork's
// deploy time grows with the fleet, every-tick's faster than linearly from
// 20 to 40 nodes, seed fails at 40.
func suiteReport() *Report {
	rep := &Report{Scenario: DefaultScenario.Sized(10, false), Sizes: []int{10, 20, 40}, Rounds: 2,
		Builds: []Build{{Label: "fork"}, {Label: "every-tick"}, {Label: "seed"}}}
	raft := 2e6
	deploy := map[string]map[int]float64{
		"fork":       {10: 10, 20: 20, 40: 40},
		"every-tick": {10: 10, 20: 20, 40: 80},
		"seed":       {10: 10, 20: 20, 40: 40},
	}
	for round := 1; round <= 2; round++ {
		for _, n := range rep.Sizes {
			for _, b := range rep.Builds {
				d := deploy[b.Label][n] + float64(round-1) // rounds differ by 1 s
				rpcs := 100.0 * float64(n)
				if b.Label == "every-tick" {
					rpcs *= 2
				}
				res := Result{Label: b.Label, Round: round, Nodes: n, Allocs: 10 * n, Check: Check{Checked: 10 * n},
					Phases: []experiment.Phase{
						{Name: experiment.PhaseInitial, Seconds: d / 2, UpdateAllocRPCs: rpcs, UpdateAllocMillis: 5 * rpcs, RaftBytes: &raft},
						{Name: experiment.PhaseRolling, Seconds: d / 2, RaftBytes: &raft},
						{Name: PhaseBatch, Seconds: 12, RaftBytes: &raft},
						{Name: PhaseDrain, Seconds: 7, RaftBytes: &raft},
						{Name: experiment.PhaseSettle, Seconds: 10, RaftBytes: &raft},
					}}
				if b.Label != "seed" { // seed: a build without the timer
					res.UpdateAllocRTT = &RTT{RPCs: uint64(rpcs), P50Ms: rpcs / 50, P99Ms: rpcs / 5}
				}
				if b.Label == "seed" && n == 40 {
					res.Check.Lost = []string{"a1 on nodesim-0: status: servers running, node complete"}
				}
				rep.Results = append(rep.Results, res)
			}
		}
	}
	return rep
}

func TestWriteTableSizes(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, suiteReport()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"fleets of 10,20,40 simulated nodes",
		"\n20 nodes: 200 allocations, max_parallel 5\n",
		"| figure | fork | every-tick | seed | fork ÷ every-tick | seed ÷ every-tick |",
		// the median of rounds 1 and 2: 5 and 5.5 → 5.2 (fork, 10 nodes)
		"| initial deployment | 5.2 s | 5.2 s | 5.2 s | 1.00 | 1.00 |",
		"| batch queue makespan | 12.0 s | 12.0 s | 12.0 s | 1.00 | 1.00 |",
		"| drain time (¼ of the nodes) | 7.0 s | 7.0 s | 7.0 s | 1.00 | 1.00 |",
		"| `Node.UpdateAlloc` RPCs (servers) | 1000 | 2000 | 1000 | 0.50 | 0.50 |",
		"| server time per `Node.UpdateAlloc` (mean) | 5.0 ms | 5.0 ms | 5.0 ms | 1.00 | 1.00 |",
		// 20 and 40 ms (10 nodes), seed's n/a (no timer), not 0
		"| client `Node.UpdateAlloc` round trip p50 | 20.0 ms | 40.0 ms | n/a | 0.50 | n/a |",
		"| client `Node.UpdateAlloc` round trip p99 | 200.0 ms | 400.0 ms | n/a | 0.50 | n/a |",
		"| Raft log bytes | 10.00 MB |",
		"| result | ok / ok | ok / ok | NOT OK / NOT OK |  |  |",
		"seed N=40 r2: lost: a1 on nodesim-0",
		"knee: fork: every size ok, deploy time at most linear up to 40 nodes",
		"knee: every-tick: deploy time grows faster than linearly from 20 to 40 nodes (20.5 s → 80.5 s, ×1.96 per node)",
		"knee: seed: first not ok at 40 nodes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestWriteCharts(t *testing.T) {
	dir := t.TempDir()
	if keep := os.Getenv("SCALE_CHART_DIR"); keep != "" {
		dir = keep // to look at the charts
	}
	files, err := WriteCharts(suiteReport(), dir)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, rw := range rows {
		if rw.key != "" {
			want++
		}
	}
	if len(files) != want || want < 8 {
		t.Fatalf("%d charts, want %d", len(files), want)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v", filepath.Base(f), b)
		}
	}
	// A report without runs still draws, but no chart of a workload that
	// did not run.
	files, err = WriteCharts(&Report{}, filepath.Join(dir, "empty"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if b := filepath.Base(f); b == "makespan_seconds.png" || b == "drain_seconds.png" {
			t.Errorf("a chart of a workload not run: %s", b)
		}
	}
}

// TestConfigResolve: the sizes are DefaultSizes unless -sizes, -n or -smoke
// says otherwise; the smoke test keeps its one workload.
func TestConfigResolve(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		sizes     []int
		workloads string
	}{
		{"default", nil, DefaultSizes, "rolling,batch,drain"},
		{"-n", []string{"-n", "50"}, nil, "rolling,batch,drain"},
		{"-sizes", []string{"-sizes", "30,10,20"}, []int{10, 20, 30}, "rolling,batch,drain"},
		{"-smoke", []string{"-smoke"}, nil, "rolling"},
		{"-smoke -workloads", []string{"-smoke", "-workloads", "rolling,drain"}, nil, "rolling,drain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("scale", flag.ContinueOnError)
			c.Flags(fs, t.TempDir())
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Resolve(experiment.Given(fs)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.Sizes, tc.sizes) || c.Scenario.Workloads != tc.workloads {
				t.Errorf("sizes %v, workloads %q; want %v, %q", c.Sizes, c.Scenario.Workloads, tc.sizes, tc.workloads)
			}
		})
	}
}

// TestWriteTableWorkloadsNotRun leaves out the rows of a workload that did
// not run (the smoke test runs the rolling deployment only).
func TestWriteTableWorkloadsNotRun(t *testing.T) {
	rep := &Report{Scenario: SmokeScenario, Results: []Result{{Label: "fork", Nodes: 20, Allocs: 200, Check: Check{Checked: 400},
		Phases: []experiment.Phase{{Name: experiment.PhaseInitial, Seconds: 4}, {Name: experiment.PhaseRolling, Seconds: 8}, {Name: experiment.PhaseSettle}}}}}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, gone := range []string{"batch queue makespan", "drain time", "in batch", "in drain"} {
		if strings.Contains(out, gone) {
			t.Errorf("%q in a table of no such workload:\n%s", gone, out)
		}
	}
	if !strings.Contains(out, "| rolling deployment | 8.0 s |") {
		t.Errorf("no rolling deployment row:\n%s", out)
	}
}
