package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// JobID is the scenario's job.
const JobID = "bench"

// scenario is one run of the scenario: a cluster, the job, the snapshots.
type scenario struct {
	opts Options
	log  io.Writer
	c    *cluster.Cluster
}

// RunScenario runs the scenario once. It must run inside the sandbox: it
// verifies the network namespace before it starts any agent, and the
// cluster checks every host's namespace before it starts any agent there.
func RunScenario(ctx context.Context, opts Options, log io.Writer) (*Run, error) {
	if err := sandbox.Verify(); err != nil {
		return nil, fmt.Errorf("refusing to start agents outside the sandbox: %w", err)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.DataRoot == "" {
		opts.DataRoot = DefaultDataRoot
	}
	if err := cluster.MountTmpfs(opts.DataRoot); err != nil {
		return nil, err
	}
	run := &Run{Label: opts.Label, Round: opts.Round, Binary: opts.Nomad, Count: opts.Count,
		Topology: string(opts.Topology), Started: time.Now()}
	if out, err := exec.CommandContext(ctx, opts.Nomad, "version").Output(); err == nil {
		run.Version, run.Revision = parseVersion(string(out))
	}
	s := &scenario{opts: opts, log: log}
	err := s.run(ctx, run)
	if s.c != nil {
		s.c.Stop()
	}
	run.TotalSeconds = time.Since(run.Started).Seconds()
	return run, err
}

// parseVersion reads `nomad version`'s output: "Nomad v1.5.3+fork.1" on the
// first line, "Revision <commit>" on a later one.
func parseVersion(out string) (version, revision string) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	version = strings.TrimSpace(lines[0])
	for _, l := range lines[1:] {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "Revision "); ok {
			revision = strings.TrimSpace(rest)
		}
	}
	return version, revision
}

func (s *scenario) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "    [%s r%d] %s\n", s.opts.Label, s.opts.Round, fmt.Sprintf(format, args...))
}

func (s *scenario) run(ctx context.Context, run *Run) error {
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Spec{
		Topology: s.opts.Topology, Nomad: s.opts.Nomad, Dir: s.opts.Dir, DataRoot: s.opts.DataRoot,
		Clients: s.opts.Clients, StartTimeout: s.opts.StartTimeout, Log: s.log,
	})
	if err != nil {
		return err
	}
	s.c = c
	run.StartupSeconds = time.Since(start).Seconds()
	s.logf("%s cluster of %d server(s) and %d clients ready in %.1fs", s.opts.Topology, len(c.Servers), len(c.Clients), run.StartupSeconds)

	edges := make([]Snapshot, 0, 4)
	snap := func() error {
		sn, err := s.snapshot(ctx)
		if err != nil {
			return err
		}
		edges = append(edges, sn)
		run.LoadAvg = append(run.LoadAvg, sn.Load1)
		return nil
	}
	if err := snap(); err != nil {
		return err
	}
	var durations []float64
	for version, phase := range []string{PhaseInitial, PhaseRolling} {
		d, err := s.deploy(ctx, version)
		if err != nil {
			return fmt.Errorf("%s deployment: %w", phase, err)
		}
		s.logf("%s deployment of %d allocations successful in %.1fs", phase, s.opts.Count, d.Seconds())
		durations = append(durations, d.Seconds())
		if err := snap(); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(s.opts.Settle):
	}
	if err := snap(); err != nil {
		return err
	}
	for i, name := range Phases {
		p := Diff(name, edges[i], edges[i+1])
		if i < len(durations) {
			p.Seconds = durations[i]
		}
		run.Phases = append(run.Phases, p)
	}
	return c.CheckAlive()
}

// deploy registers the job's version (0: initial, 1: the env var changed)
// and waits for that version's deployment to be successful. It returns the
// time from registering to seeing it successful.
func (s *scenario) deploy(ctx context.Context, version int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.PhaseTimeout)
	defer cancel()
	start := time.Now()
	if err := s.c.API(ctx).Register(ctx, cluster.BenchJob(JobID, s.opts.Count, version)); err != nil {
		return 0, err
	}
	var index uint64 = 1
	var last *cluster.Deployment
	for {
		if err := s.c.CheckAlive(); err != nil {
			return 0, err
		}
		d, next, err := s.c.API(ctx).LatestDeployment(ctx, JobID, index, 5*time.Second)
		if err != nil {
			if ctx.Err() != nil {
				return 0, fmt.Errorf("no successful deployment after %s (last: %+v): %w", s.opts.PhaseTimeout, last, ctx.Err())
			}
			return 0, err
		}
		if next > 0 {
			index = next
		}
		if d == nil || d.JobVersion != uint64(version) {
			continue
		}
		last = d
		switch d.Status {
		case cluster.DeploymentSuccessful:
			return time.Since(start), nil
		case cluster.DeploymentRunning, "pending", "paused", "blocked", "initializing", "unblocking":
			continue
		default:
			return 0, fmt.Errorf("deployment %s is %s: %s", d.ID, d.Status, d.StatusDescription)
		}
	}
}

// snapshot reads the leader's counters, the clients' fork metrics and
// link counters, the agents' CPU times, the load average and the
// allocations' ClientStatus transitions.
func (s *scenario) snapshot(ctx context.Context) (Snapshot, error) {
	sn, leader, err := LeaderSnapshot(ctx, s.c)
	if err != nil {
		return sn, err
	}

	// The clients' links count their traffic to the servers; the bench's
	// own scrapes of the clients pass the same links, so the counters are
	// read on both sides of the scrapes and a phase counts from after one
	// snapshot's scrapes to before the next one's.
	links := !s.c.Clients[0].Spec.Host.Shared()
	readLinks := func() (cluster.LinkCounters, error) {
		var sum cluster.LinkCounters
		for _, a := range s.c.Clients {
			lc, err := a.Spec.Host.Counters()
			if err != nil {
				return sum, fmt.Errorf("%s link counters: %w", a.Spec.Name, err)
			}
			sum.Sent += lc.Sent
			sum.Received += lc.Received
		}
		return sum, nil
	}
	if links {
		before, err := readLinks()
		if err != nil {
			return sn, err
		}
		sn.LinksBefore = &before
	}
	cms := make([]cluster.Metrics, len(s.c.Clients))
	errs := make([]error, len(s.c.Clients))
	var wg sync.WaitGroup
	for i, c := range s.c.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cms[i], errs[i] = c.API.Metrics(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return sn, fmt.Errorf("client metrics: %w", err)
	}
	if links {
		after, err := readLinks()
		if err != nil {
			return sn, err
		}
		sn.LinksAfter = &after
	}
	sn.ClientRPCs, sn.ClientSent, sn.ClientBuffered = cluster.SumClientMetrics(cms)

	procs, err := ReadProcTable("/proc")
	if err != nil {
		return sn, err
	}
	sn.SetServerCPU(procs, s.c.Servers, leader)
	for _, a := range s.c.Clients {
		cpu := procs.CPUOf(a.PID())
		sn.ClientCPU.Self += cpu.Self
		sn.ClientCPU.Tree += cpu.Tree
	}

	allocs, err := leader.API.Allocations(ctx, JobID)
	if err != nil {
		return sn, err
	}
	sn.Transitions = Transitions(allocs)
	return sn, nil
}

// LeaderSnapshot starts a snapshot: the time, the load, the leader and
// its counters. It returns the leader.
func LeaderSnapshot(ctx context.Context, c *cluster.Cluster) (Snapshot, *cluster.Agent, error) {
	sn := Snapshot{At: time.Now(), Server: map[string]float64{}}
	sn.Load1, _ = LoadAverage()
	leader, err := c.Leader(ctx)
	if err != nil || leader == nil {
		return sn, nil, fmt.Errorf("finding the leader: %v", err)
	}
	sn.Leader = leader.Spec.Name
	m, err := leader.API.Metrics(ctx)
	if err != nil {
		return sn, nil, fmt.Errorf("leader metrics: %w", err)
	}
	for _, name := range []string{cluster.MetricUpdateAlloc, cluster.MetricRaftApply, cluster.MetricFSMAllocClientUpdate} {
		if v, ok := m.Value(name); ok {
			sn.Server[name] = v
		}
	}
	return sn, leader, nil
}

// SetServerCPU sets the snapshot's CPU of the servers and of the leader
// from procs.
func (sn *Snapshot) SetServerCPU(procs ProcTable, servers []*cluster.Agent, leader *cluster.Agent) {
	sn.ServerCPU = CPU{}
	for _, a := range servers {
		cpu := procs.CPUOf(a.PID())
		sn.ServerCPU.Self += cpu.Self
		sn.ServerCPU.Tree += cpu.Tree
	}
	sn.LeaderCPU = procs.CPUOf(leader.PID()).Self
}

// LoadAverage returns the machine's 1-minute load average (the kernel's,
// the same in every namespace).
func LoadAverage() (float64, error) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("empty /proc/loadavg")
	}
	return strconv.ParseFloat(f[0], 64)
}
