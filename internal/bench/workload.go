package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// Workload is one scenario of the suite. Every workload runs on a cluster
// it shares with the others of the run (one after the other, the jobs
// stopped, purged and garbage collected in between), so a workload starts
// on quiet, empty clients and leaves none of its jobs behind.
type Workload interface {
	// Name is the workload's name on the command line and in reports.
	Name() string
	// Latency names the user-facing figure the workload measures.
	Latency() string
	// Run runs the workload once with env.N as its size. It returns its
	// figures; an error when the scenario itself did not happen (nothing
	// queued, a drain that never finished), never for a slow one.
	Run(ctx context.Context, env *Env) (WorkloadRun, error)
}

// Workloads is the suite, in the order a run runs it.
var Workloads = []Workload{
	rolling{name: "rolling", maxParallel: 50},
	rolling{name: "rolling-small", maxParallel: 2},
	batchQueue{},
	dispatch{},
	drain{},
	noDeploy{},
	periodic{},
	reschedule{},
}

// WorkloadNames lists the suite's names, in order.
func WorkloadNames() []string {
	var names []string
	for _, w := range Workloads {
		names = append(names, w.Name())
	}
	return names
}

// WorkloadByName returns the named workload.
func WorkloadByName(name string) (Workload, bool) {
	for _, w := range Workloads {
		if w.Name() == name {
			return w, true
		}
	}
	return nil, false
}

// Sizes are the workloads' N, by name.
type Sizes map[string]int

// SuiteSizes are the sizes of `make bench`: the largest that let the
// whole suite, four binaries, both topologies and 3 rounds fit 45 minutes
// on a 2-core machine (docs/bench.md).
var SuiteSizes = Sizes{
	"rolling": 120, "rolling-small": 6, "batch-queue": 90, "dispatch": 40,
	"drain": 30, "no-deploy": 60, "periodic": 8, "reschedule": 15,
}

// SmokeSizes are the sizes of `nomadfork bench -smoke` (`make test`):
// just large enough for each scenario to happen (two deployment waves,
// allocations that queue, a drain that moves several allocations).
var SmokeSizes = Sizes{
	"rolling": 20, "rolling-small": 4, "batch-queue": 12, "dispatch": 5,
	"drain": 6, "no-deploy": 6, "periodic": 4, "reschedule": 3,
}

// String renders the sizes as the -n flag takes them, sorted by name.
func (s Sizes) String() string {
	var parts []string
	for k, v := range s {
		parts = append(parts, k+"="+strconv.Itoa(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// ParseSizes parses "name=N,name=N" (workload names checked, N ≥ 1).
func ParseSizes(s string) (Sizes, error) {
	out := Sizes{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
		if _, known := WorkloadByName(name); !ok || !known {
			return nil, fmt.Errorf("want workload=N with a workload of %s, got %q", strings.Join(WorkloadNames(), ", "), part)
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%s: N must be a whole number of at least 1, got %q", name, n)
		}
		out[name] = v
	}
	return out, nil
}

// ParseWorkloads parses a comma-separated list of workload names, "all"
// or "" for the whole suite; it keeps the suite's order.
func ParseWorkloads(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return WorkloadNames(), nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if _, ok := WorkloadByName(name); !ok {
			return nil, fmt.Errorf("unknown workload %q (want all or some of %s)", name, strings.Join(WorkloadNames(), ", "))
		}
		if want[name] {
			return nil, fmt.Errorf("workload %s given twice", name)
		}
		want[name] = true
	}
	var out []string
	for _, name := range WorkloadNames() {
		if want[name] {
			out = append(out, name)
		}
	}
	return out, nil
}

// WorkloadRun is one workload's result in one run.
type WorkloadRun struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	// Latency names the figure; Seconds is its value.
	Latency string  `json:"latency"`
	Seconds float64 `json:"seconds"`
	// Figures are the workload's other figures by key (p95, initial
	// deployment, blocked evaluations, skipped launches...).
	Figures map[string]float64 `json:"figures,omitempty"`
	// Floor is the fewest Node.UpdateAlloc RPCs that could have carried
	// the updates the servers acted on in this run (see Floor); nil in
	// reports written before the suite.
	Floor *float64 `json:"floor_rpcs,omitempty"`
	// Phases hold the counters between the workload's snapshots:
	// rolling's initial, rolling and settle; the others' one phase "run".
	Phases []experiment.Phase `json:"phases"`
	Error  string             `json:"error,omitempty"`
}

// Total sums a phase figure over the workload's phases.
func (w *WorkloadRun) Total(f func(*experiment.Phase) float64) float64 {
	var t float64
	for i := range w.Phases {
		t += f(&w.Phases[i])
	}
	return t
}

// Env is what a workload runs with: the run's cluster and event watch.
type Env struct {
	C     *cluster.Cluster
	Watch *Watch
	// N is the workload's size; Settle the wait after it for trailing
	// updates before the last reading; Timeout bounds each of its waits.
	N       int
	Settle  time.Duration
	Timeout time.Duration
	// Snapshot reads the counters (see scenario.snapshot).
	Snapshot func(ctx context.Context) (experiment.Snapshot, error)
	Logf     func(format string, args ...any)
}

// measure runs f between two snapshots, waits Settle, takes the last
// snapshot, and returns the phase "run" of the difference.
func (env *Env) measure(ctx context.Context, f func() error) ([]experiment.Phase, error) {
	a, err := env.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if err := f(); err != nil {
		return nil, err
	}
	if err := experiment.Sleep(ctx, env.Settle); err != nil {
		return nil, err
	}
	b, err := env.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return []experiment.Phase{experiment.Diff("run", a, b)}, nil
}

// complete returns the watched allocations of the jobs match picks that
// their client reports complete, or an error if one has failed.
func (env *Env) complete(match func(jobID string) bool) ([]AllocRecord, error) {
	var done []AllocRecord
	for _, a := range env.Watch.Allocs(match) {
		if a.Last.ClientStatus == experiment.ClientFailed {
			return nil, fmt.Errorf("allocation %s failed", a.Last.ID)
		}
		if a.Last.ClientStatus == experiment.ClientComplete {
			done = append(done, a)
		}
	}
	return done, nil
}

// waitWatch waits until cond holds over the watch's records, re-checking
// at every event (and every second, for the cluster's health), for at
// most env.Timeout.
func (env *Env) waitWatch(ctx context.Context, what string, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, env.Timeout)
	defer cancel()
	for {
		changed := env.Watch.Changed()
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if err := env.C.CheckAlive(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			msg := fmt.Sprintf("%s: not within %s", what, env.Timeout)
			if werr := env.Watch.Err(); werr != nil {
				msg += fmt.Sprintf(" (event stream: %v)", werr)
			}
			return errors.New(msg)
		case <-changed:
		case <-time.After(time.Second):
		}
	}
}

// Cleanup stops every job, waits until the clients have reported each of
// their allocations terminal, purges the jobs and collects the garbage, so
// the next workload starts on quiet, empty clients.
func (env *Env) Cleanup(ctx context.Context) error {
	api := env.C.API(ctx)
	jobs, err := api.Jobs(ctx, "")
	if err != nil {
		return fmt.Errorf("listing jobs: %w", err)
	}
	for _, j := range jobs {
		if j.Status == "dead" {
			continue
		}
		if err := api.Deregister(ctx, j.ID, false); err != nil {
			return fmt.Errorf("stopping %s: %w", j.ID, err)
		}
	}
	all := func(string) bool { return true }
	err = env.waitWatch(ctx, "every allocation terminal after stopping the jobs", func() (bool, error) {
		for _, r := range env.Watch.Allocs(all) {
			if !terminal(r.Last.ClientStatus) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	jobs, err = api.Jobs(ctx, "")
	if err != nil {
		return fmt.Errorf("listing jobs: %w", err)
	}
	for _, j := range jobs {
		if err := api.Deregister(ctx, j.ID, true); err != nil {
			return fmt.Errorf("purging %s: %w", j.ID, err)
		}
	}
	return api.GC(ctx)
}

// mockTask is a mock_driver task: config as given, small resources.
func mockTask(config map[string]any, cpu int) cluster.Task {
	return cluster.Task{
		Name: "task", Driver: "mock_driver", Config: config,
		Resources: &cluster.Resources{CPU: cpu, MemoryMB: 10},
		LogConfig: &cluster.LogConfig{MaxFiles: 1, MaxFileSizeMB: 1},
	}
}

// noRestart is a restart block that fails a task's allocation at its
// first exit.
var noRestart = &cluster.RestartPolicy{Attempts: 0, Interval: time.Hour, Delay: time.Second, Mode: "fail"}

// taskTimes returns when the allocation's tasks started (the earliest)
// and finished (the latest), the client's clock; zero when unknown.
func taskTimes(a cluster.AllocStub) (started, finished time.Time) {
	for _, ts := range a.TaskStates {
		if ts == nil {
			continue
		}
		if !ts.StartedAt.IsZero() && (started.IsZero() || ts.StartedAt.Before(started)) {
			started = ts.StartedAt
		}
		if ts.FinishedAt.After(finished) {
			finished = ts.FinishedAt
		}
	}
	return started, finished
}

// percentile returns the p-th percentile (0–100) of vs, nearest rank; NaN
// for none.
func percentile(vs []float64, p float64) float64 {
	if len(vs) == 0 {
		return Median(vs)
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(s) {
		i = len(s) - 1
	}
	return s[i]
}

// latest returns the latest of ts (zero for none).
func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}
