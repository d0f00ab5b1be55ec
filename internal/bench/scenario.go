package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// JobID is the scenario's job.
const JobID = "bench"

// DefaultDataRoot is the mount point of the scenario's tmpfs for data dirs.
const DefaultDataRoot = "/tmp/nomadfork-bench"

// mountTmpfs mounts a fresh tmpfs at dir. Called only in the sandbox (after
// sandbox.Verify), whose mount namespace has private propagation: the
// machine never sees the mount, and it vanishes with the sandbox.
func mountTmpfs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=8g"); err != nil {
		return fmt.Errorf("mounting a tmpfs for data dirs at %s: %w", dir, err)
	}
	return nil
}

// Options configure one scenario run.
type Options struct {
	Nomad string // the nomad binary
	Dir   string // the run's directory: one subdirectory per agent
	// DataRoot is where the agents' data dirs go: the scenario mounts a
	// tmpfs there in the sandbox's private mount namespace, so data dirs
	// cost no disk I/O, vanish with the sandbox, and their paths stay
	// short enough for the unix sockets Nomad makes in them.
	DataRoot string
	Label    string
	Round    int
	Count    int           // the job's count
	Clients  int           // client agents (3)
	Settle   time.Duration // wait after the rolling deployment
	// PhaseTimeout bounds each deployment; StartTimeout the cluster start.
	PhaseTimeout time.Duration
	StartTimeout time.Duration
	Log          io.Writer
}

// Scenario is one run of the scenario: a cluster, the job, the snapshots.
type Scenario struct {
	opts    Options
	server  *Agent
	clients []*Agent
	api     *Client
	capi    []*Client
}

// RunScenario runs the scenario once. It must run inside the sandbox: it
// verifies the network namespace before it starts any agent.
func RunScenario(ctx context.Context, opts Options) (*Run, error) {
	if err := sandbox.Verify(); err != nil {
		return nil, fmt.Errorf("refusing to start agents outside the sandbox: %w", err)
	}
	if opts.Clients == 0 {
		opts.Clients = 3
	}
	if opts.DataRoot == "" {
		opts.DataRoot = DefaultDataRoot
	}
	if err := mountTmpfs(opts.DataRoot); err != nil {
		return nil, err
	}
	run := &Run{Label: opts.Label, Round: opts.Round, Binary: opts.Nomad, Count: opts.Count, Started: time.Now()}
	if out, err := exec.CommandContext(ctx, opts.Nomad, "version").Output(); err == nil {
		run.Version = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	s := &Scenario{opts: opts}
	defer s.stop()
	err := s.run(ctx, run)
	run.TotalSeconds = time.Since(run.Started).Seconds()
	return run, err
}

func (s *Scenario) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "    [%s r%d] %s\n", s.opts.Label, s.opts.Round, fmt.Sprintf(format, args...))
}

func (s *Scenario) agents() []*Agent {
	var all []*Agent
	if s.server != nil {
		all = append(all, s.server)
	}
	return append(all, s.clients...)
}

func (s *Scenario) run(ctx context.Context, run *Run) error {
	start := time.Now()
	if err := s.start(ctx); err != nil {
		return err
	}
	run.StartupSeconds = time.Since(start).Seconds()
	s.logf("cluster of 1 server and %d clients ready in %.1fs", s.opts.Clients, run.StartupSeconds)

	edges := make([]Snapshot, 0, 4)
	snap := func() error {
		sn, err := s.snapshot(ctx)
		if err != nil {
			return err
		}
		edges = append(edges, sn)
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
	return checkAlive(s.agents())
}

// start starts the server, waits for its leadership, starts the clients
// and waits until every client is ready with a healthy mock driver.
func (s *Scenario) start(ctx context.Context) error {
	specs := Cluster(s.opts.Dir, s.opts.DataRoot, s.opts.Clients)
	var err error
	if s.server, err = StartAgent(s.opts.Nomad, specs[0]); err != nil {
		return err
	}
	s.api = NewClient(specs[0].HTTPAddr())
	for _, spec := range specs[1:] {
		a, err := StartAgent(s.opts.Nomad, spec)
		if err != nil {
			return err
		}
		s.clients = append(s.clients, a)
		s.capi = append(s.capi, NewClient(spec.HTTPAddr()))
	}
	err = waitFor(ctx, "a leader", s.opts.StartTimeout, 200*time.Millisecond, func() (bool, error) {
		if err := checkAlive(s.agents()); err != nil {
			return false, err
		}
		leader, err := s.api.Leader(ctx)
		return leader != "", err
	})
	if err != nil {
		return err
	}
	return waitFor(ctx, "ready clients", s.opts.StartTimeout, 200*time.Millisecond, func() (bool, error) {
		if err := checkAlive(s.agents()); err != nil {
			return false, err
		}
		nodes, err := s.api.Nodes(ctx)
		if err != nil {
			return false, err
		}
		ready := 0
		for _, n := range nodes {
			if d := n.Drivers["mock_driver"]; n.Status == "ready" && d != nil && d.Healthy {
				ready++
			}
		}
		return ready == s.opts.Clients, nil
	})
}

// deploy registers the job's version (0: initial, 1: the env var changed)
// and waits for that version's deployment to be successful. It returns the
// time from registering to seeing it successful.
func (s *Scenario) deploy(ctx context.Context, version int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.PhaseTimeout)
	defer cancel()
	start := time.Now()
	if err := s.api.Register(ctx, BenchJob(JobID, s.opts.Count, version)); err != nil {
		return 0, err
	}
	var index uint64 = 1
	var last *Deployment
	for {
		if err := checkAlive(s.agents()); err != nil {
			return 0, err
		}
		d, next, err := s.api.LatestDeployment(ctx, JobID, index, 5*time.Second)
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
		case DeploymentSuccessful:
			return time.Since(start), nil
		case DeploymentRunning, "pending", "paused", "blocked", "initializing", "unblocking":
			continue
		default:
			return 0, fmt.Errorf("deployment %s is %s: %s", d.ID, d.Status, d.StatusDescription)
		}
	}
}

// snapshot reads the server's counters, the clients' fork metrics, the
// agents' CPU times and the allocations' ClientStatus transitions.
func (s *Scenario) snapshot(ctx context.Context) (Snapshot, error) {
	sn := Snapshot{At: time.Now(), Server: map[string]float64{}}
	m, err := s.api.Metrics(ctx)
	if err != nil {
		return sn, fmt.Errorf("server metrics: %w", err)
	}
	for _, name := range []string{MetricUpdateAlloc, MetricRaftApply, MetricFSMAllocClientUpdate} {
		if v, ok := m.Value(name); ok {
			sn.Server[name] = v
		}
	}
	cms := make([]Metrics, len(s.capi))
	errs := make([]error, len(s.capi))
	var wg sync.WaitGroup
	for i, c := range s.capi {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cms[i], errs[i] = c.Metrics(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return sn, fmt.Errorf("client metrics: %w", err)
	}
	sn.ClientRPCs, sn.ClientSent, sn.ClientBuffered = sumClientMetrics(cms)

	procs, err := ReadProcTable("/proc")
	if err != nil {
		return sn, err
	}
	sn.ServerCPU = procs.CPUOf(s.server.PID())
	for _, c := range s.clients {
		cpu := procs.CPUOf(c.PID())
		sn.ClientCPU.Self += cpu.Self
		sn.ClientCPU.Tree += cpu.Tree
	}

	allocs, err := s.api.Allocations(ctx, JobID)
	if err != nil {
		return sn, err
	}
	sn.Transitions = Transitions(allocs)
	return sn, nil
}

// sumClientMetrics sums the fork's client metrics over the clients' scrapes;
// each result is nil when no client exposes that metric.
func sumClientMetrics(scrapes []Metrics) (rpcs, sent map[string]float64, buffered *float64) {
	for _, m := range scrapes {
		if byTrigger, ok := m.ByLabel(MetricClientUpdateRPCs, LabelTrigger); ok {
			if rpcs == nil {
				rpcs = map[string]float64{}
			}
			for k, v := range byTrigger {
				rpcs[k] += v
			}
		}
		if byPriority, ok := m.ByLabel(MetricClientUpdatesSent, LabelPriority); ok {
			if sent == nil {
				sent = map[string]float64{}
			}
			for k, v := range byPriority {
				sent[k] += v
			}
		}
		if v, ok := m.Value(MetricClientUpdatesBuffered); ok {
			if buffered == nil {
				buffered = new(float64)
			}
			*buffered += v
		}
	}
	return rpcs, sent, buffered
}

// stop stops the clients, then the server: SIGINT, then a kill after a
// grace period. The sandbox's PID namespace kills whatever is left.
func (s *Scenario) stop() {
	var wg sync.WaitGroup
	for _, c := range s.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !c.Stop(15 * time.Second) {
				s.logf("%s did not stop within 15s of SIGINT; killed", c.Spec.Name)
			}
		}()
	}
	wg.Wait()
	if s.server != nil && !s.server.Stop(15*time.Second) {
		s.logf("server did not stop within 15s of SIGINT; killed")
	}
}
