package scale

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// RunArg is the hidden first argument with which the scale verb
// re-executes the tool inside a sandbox to run the scenario once; the
// tool's main function calls ScenarioMain when it sees it.
const RunArg = "__scale-run"

// nodesimHost is the simulator's host, statePort the port of its state API.
const (
	nodesimHost = "nodesim"
	statePort   = 4646
	statePath   = "/v1/state"
	// nodePrefix is the simulated nodes' name prefix (nodesim's default).
	nodePrefix = "nodesim-"
)

// Result is one run of the scenario with one simulator build.
type Result struct {
	Label   string `json:"label"`
	Round   int    `json:"round,omitempty"`
	Version string `json:"version,omitempty"` // the servers' nomad version
	Nodes   int    `json:"nodes"`
	Allocs  int    `json:"allocs"` // allocations the jobs total
	Jobs    int    `json:"jobs"`
	// StartupSeconds is the cluster's start, NodesSeconds the time from
	// starting the simulator to every node ready on the servers.
	StartupSeconds float64 `json:"startup_seconds"`
	NodesSeconds   float64 `json:"nodes_ready_seconds"`
	// Phases are the initial deployment, the rolling one, the batch queue
	// and the drain when run (Scenario.Phases), and the settle (package
	// bench's figures; the client CPU and bytes are the simulator's).
	Phases []experiment.Phase `json:"phases"`
	// Batch and Drain are the batch queue's and the drain's figures; nil
	// when not run.
	Batch *BatchResult `json:"batch,omitempty"`
	Drain *DrainResult `json:"drain,omitempty"`
	// RSSIdle is the simulator's resident memory with every node ready and
	// no allocation; RSS at steady state after the settle; RSSPeak its peak
	// (VmHWM). Bytes.
	RSSIdle uint64 `json:"rss_idle_bytes"`
	RSS     uint64 `json:"rss_bytes"`
	RSSPeak uint64 `json:"rss_peak_bytes"`
	// UpdateAllocRTT is the clients' own Node.UpdateAlloc round trip over
	// the phases, UpdateAllocRTTPhases per phase; nil when the simulator
	// serves no histogram or timed no RPC (a build without the timer).
	UpdateAllocRTT       *RTT  `json:"update_alloc_rtt,omitempty"`
	UpdateAllocRTTPhases []RTT `json:"update_alloc_rtt_phases,omitempty"`
	// HeapInuse and Goroutines are the simulator's own, at steady state.
	HeapInuse    uint64    `json:"heap_inuse_bytes"`
	Goroutines   int       `json:"goroutines"`
	Check        Check     `json:"check"`
	LoadAvg      []float64 `json:"load_avg,omitempty"`
	TotalSeconds float64   `json:"total_seconds"`
	Error        string    `json:"error,omitempty"`
}

// OK reports whether the run completed, converged and lost nothing.
func (r *Result) OK() bool {
	return r.Error == "" && r.Check.OK(r.Allocs)
}

// SetError records the run's error.
func (r *Result) SetError(err string) { r.Error = err }

// Phase returns the named phase, or nil.
func (r *Result) Phase(name string) *experiment.Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// ScenarioMain is the hidden scenario verb, run inside the sandbox with
// the flags Options.Args renders: it runs the scenario once and prints its
// result as one line of JSON on stdout. It returns the exit code.
func ScenarioMain(args []string, stdout, stderr io.Writer) int {
	return experiment.HiddenMain(RunArg, args, stdout, stderr, ParseOptions, experiment.Recorded(RunScenario))
}

// run is one run of the scenario.
type run struct {
	opts Options
	log  io.Writer
	c    *cluster.Cluster
	// sims run the simulated nodes (a process, or a job's instances).
	sims simulators
	// counters sums the servers' counters whatever server leads.
	counters *experiment.Counters
	res      *Result
}

// RunScenario runs the scenario once. It must run inside the sandbox. The
// result is never nil.
func RunScenario(ctx context.Context, opts Options, log io.Writer) (*Result, error) {
	res := &Result{Label: opts.Label, Nodes: opts.Nodes, Allocs: opts.Allocs(), Jobs: opts.Jobs}
	start := time.Now()
	defer func() { res.TotalSeconds = time.Since(start).Seconds() }()
	v, err := experiment.Prepare(ctx, opts.Validate(), opts.DataRoot, opts.Nomad)
	res.Version = v.Line
	if err != nil {
		return res, err
	}
	r := &run{opts: opts, log: log, res: res}
	err = r.run(ctx)
	if r.c != nil {
		if opts.Job() {
			r.saveJobLogs()
		}
		r.c.Stop()
	}
	return res, err
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "    [%s N=%d] %s\n", r.opts.Label, r.opts.Nodes, fmt.Sprintf(format, args...))
}

func (r *run) run(ctx context.Context) error {
	t0 := time.Now()
	c, err := cluster.Start(ctx, cluster.Spec{
		Topology: cluster.Multi, Nomad: r.opts.Nomad, Dir: r.opts.Dir, DataRoot: r.opts.DataRoot,
		Clients: 0, StartTimeout: r.opts.StartTimeout, Log: r.log,
		// Every simulated node connects from the simulator's one address.
		ServerRPCMaxConnsPerClient: new(int),
	})
	if err != nil {
		return err
	}
	r.c = c
	r.res.StartupSeconds = time.Since(t0).Seconds()
	r.counters = experiment.NewCounters()
	pctx, stopPolling := context.WithCancel(ctx)
	defer stopPolling()
	go r.counters.Run(pctx, c.Servers)
	r.logf("3 servers ready in %.1fs", r.res.StartupSeconds)
	// Spread the allocations over the nodes, as a fleet of real clients
	// would carry them, rather than packing them onto the fewest.
	if err := c.API(ctx).SetSchedulerAlgorithm(ctx, "spread"); err != nil {
		return fmt.Errorf("setting the spread scheduler: %w", err)
	}

	if err := r.startNodes(ctx); err != nil {
		return err
	}
	r.res.RSSIdle, _, _ = r.sims.memory()
	r.logf("%d nodes ready in %.1fs; simulator RSS %s", r.opts.Nodes, r.res.NodesSeconds, mib(r.res.RSSIdle))

	var edges []experiment.Snapshot
	var rtts []*simstate.Histogram // the round trip histogram at each edge
	snap := func() error {
		sn, err := r.snapshot(ctx)
		if err != nil {
			return err
		}
		edges = append(edges, sn)
		r.res.LoadAvg = append(r.res.LoadAvg, sn.Load1)
		h, err := r.rttHistogram(ctx)
		if err != nil {
			r.logf("reading the round trip histogram: %v", err)
		}
		rtts = append(rtts, h)
		return nil
	}
	if err := snap(); err != nil {
		return err
	}
	var durations []float64
	for version, phase := range []string{experiment.PhaseInitial, experiment.PhaseRolling} {
		d, err := r.deploy(ctx, version)
		if err != nil {
			return fmt.Errorf("%s deployment: %w", phase, err)
		}
		r.logf("%s deployment of %d allocations (%d jobs) successful in %.1fs", phase, r.opts.Allocs(), r.opts.Jobs, d.Seconds())
		durations = append(durations, d.Seconds())
		if err := snap(); err != nil {
			return err
		}
	}
	if r.opts.Has(WorkloadBatch) {
		b, err := r.batch(ctx)
		if err != nil {
			return fmt.Errorf("batch queue: %w", err)
		}
		r.res.Batch = b
		r.logf("batch queue of %d allocations on %d slots complete in %.1fs", b.Allocs, b.Slots, b.Seconds)
		durations = append(durations, b.Seconds)
		if err := snap(); err != nil {
			return err
		}
	}
	if r.opts.Has(WorkloadDrain) {
		d, err := r.drain(ctx)
		if err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		r.res.Drain = d
		r.logf("drain of %d nodes (%d allocations) done in %.1fs", d.Nodes, d.Allocs, d.Seconds)
		durations = append(durations, d.Seconds)
		if err := snap(); err != nil {
			return err
		}
	}
	if err := experiment.Sleep(ctx, r.opts.Settle); err != nil {
		return err
	}
	if err := snap(); err != nil {
		return err
	}
	for i, name := range r.opts.Phases() {
		p := experiment.Diff(name, edges[i], edges[i+1])
		for j, n := range p.Notes {
			if a, b := edges[i].Leader, edges[i+1].Leader; a != b && strings.HasPrefix(n, "the leader changed") {
				p.Notes[j] = fmt.Sprintf("the leader changed from %s to %s: the counters are summed over the servers; no leader CPU", a, b)
			}
		}
		if i < len(durations) {
			p.Seconds = durations[i]
		}
		r.res.Phases = append(r.res.Phases, p)
	}
	r.res.UpdateAllocRTT, r.res.UpdateAllocRTTPhases, err = rttFigures(r.opts.Phases(), rtts)
	if err != nil {
		r.logf("the clients' round trip: %v", err)
	}
	r.res.RSS, r.res.RSSPeak, _ = r.sims.memory()
	if err := r.check(ctx); err != nil {
		return err
	}
	r.logf("steady state: simulator RSS %s (%s per node), peak %s; %d allocations checked, %d lost, %d unconverged",
		mib(r.res.RSS), mib(r.res.RSS/uint64(r.opts.Nodes)), mib(r.res.RSSPeak),
		r.res.Check.Checked, len(r.res.Check.Lost), len(r.res.Check.Unconverged))
	return c.CheckAlive()
}

// startNodes starts the simulator on a host of its own, or the job of
// simulators on a placement cluster (-place job), and waits until every
// node is ready on the servers with a healthy mock driver.
func (r *run) startNodes(ctx context.Context) error {
	t0 := time.Now()
	if r.opts.Job() {
		api, host, err := r.startPlacement(ctx)
		if err != nil {
			return fmt.Errorf("placement cluster: %w", err)
		}
		r.logf("placement cluster (1 server, 1 client with raw_exec) ready in %.1fs", time.Since(t0).Seconds())
		t0 = time.Now()
		if r.sims, err = r.placeJob(ctx, api, host); err != nil {
			return err
		}
		return r.waitNodes(ctx, t0)
	}
	h, err := r.c.AddHost(ctx, nodesimHost)
	if err != nil {
		return err
	}
	var servers []string
	for _, s := range r.c.Servers {
		servers = append(servers, s.Spec.RPCAddr())
	}
	argv := []string{r.opts.Nodesim,
		"-servers", strings.Join(servers, ","),
		"-nodes", strconv.Itoa(r.opts.Nodes),
		"-data-dir", filepath.Join(r.opts.DataRoot, nodesimHost),
		"-network-interface", "eth0",
		"-realistic",
		"-setup-delay", r.opts.Setup.String(),
		"-start-delay", r.opts.Start.String(),
		"-kill-delay", r.opts.Kill.String(),
		"-http", fmt.Sprintf("%s:%d", h.Addr, statePort),
		"-log-level", "warn",
	}
	sim, err := r.c.StartProcess(h, nodesimHost, filepath.Join(r.opts.Dir, nodesimHost), argv...)
	if err != nil {
		return err
	}
	r.sims = processSims{sim}
	return r.waitNodes(ctx, t0)
}

// waitNodes waits until every node is ready on the servers with a healthy
// mock driver; NodesSeconds is the time since t0.
func (r *run) waitNodes(ctx context.Context, t0 time.Time) error {
	err := cluster.WaitFor(ctx, fmt.Sprintf("%d ready nodes", r.opts.Nodes), r.opts.StartTimeout, time.Second, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		nodes, err := r.c.API(ctx).Nodes(ctx)
		if err != nil {
			return false, err
		}
		return readyNodes(nodes) >= r.opts.Nodes, nil
	})
	r.res.NodesSeconds = time.Since(t0).Seconds()
	return err
}

// readyNodes counts the simulated nodes that are ready with a healthy mock
// driver.
func readyNodes(nodes []cluster.NodeStub) int {
	ready := 0
	for _, n := range nodes {
		if simNodeReady(n) {
			ready++
		}
	}
	return ready
}

// simNodeReady reports whether n is a simulated node, ready with a healthy
// mock driver.
func simNodeReady(n cluster.NodeStub) bool {
	d := n.Drivers["mock_driver"]
	return strings.HasPrefix(n.Name, nodePrefix) && n.Status == "ready" && d != nil && d.Healthy
}

// jobID is the i-th job's ID.
func jobID(i int) string { return fmt.Sprintf("scale-%02d", i) }

// job is the i-th job at version: Count mock tasks, the scenario's update
// block, task-state health (the bench's healthy and progress deadlines).
func (r *run) job(i, version int) *cluster.Job {
	j := cluster.ServiceJob(jobID(i), r.opts.Count(), version, r.opts.MaxParallel)
	j.TaskGroups[0].Update.MinHealthyTime = r.opts.MinHealthy
	j.TaskGroups[0].Migrate = r.migrate()
	return j
}

// deploy registers every job at version and waits until all their
// deployments of that version are successful. It returns the time from the
// first registration to seeing the last deployment successful.
func (r *run) deploy(ctx context.Context, version int) (time.Duration, error) {
	start := time.Now()
	for i := 0; i < r.opts.Jobs; i++ {
		if err := r.c.API(ctx).Register(ctx, r.job(i, version)); err != nil {
			return 0, fmt.Errorf("registering %s: %w", jobID(i), err)
		}
	}
	jobs := make([]string, r.opts.Jobs)
	for i := range jobs {
		jobs[i] = jobID(i)
	}
	if err := (experiment.Deploys{C: r.c, Interval: time.Second}).Wait(ctx, jobs, uint64(version), r.opts.PhaseTimeout); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// snapshot reads the server counters (summed over the servers), the servers', the leader's and the
// simulator's CPU, the simulator host's link counters, the load and the
// allocations' ClientStatus transitions.
func (r *run) snapshot(ctx context.Context) (experiment.Snapshot, error) {
	sn, leader, err := experiment.StartSnapshot(ctx, r.c, r.counters)
	if err != nil {
		return sn, err
	}
	lc, err := r.sims.links()
	if err != nil {
		return sn, fmt.Errorf("simulator link counters: %w", err)
	}
	sn.LinksBefore, sn.LinksAfter = &lc, &lc
	procs, err := experiment.ReadProcTable("/proc")
	if err != nil {
		return sn, err
	}
	sn.SetServerCPU(procs, r.c.Servers, leader)
	sn.ClientCPU = r.sims.cpu(procs)
	for i := 0; i < r.opts.Jobs; i++ {
		allocs, err := leader.API.Allocations(ctx, jobID(i))
		if err != nil {
			return sn, err
		}
		sn.Transitions += experiment.Transitions(allocs)
	}
	return sn, nil
}

// check reads the servers' allocations of every job and the nodes' own
// view from the simulator, and compares them.
func (r *run) check(ctx context.Context) error {
	api := r.c.API(ctx)
	var allocs []cluster.AllocStub
	unconverged := map[string]string{}
	for i := 0; i < r.opts.Jobs; i++ {
		id := jobID(i)
		a, err := api.Allocations(ctx, id)
		if err != nil {
			return fmt.Errorf("reading the servers' allocations of %s: %w", id, err)
		}
		allocs = append(allocs, a...)
		if why := experiment.Unconverged(a, r.opts.Count(), 1); why != "" {
			unconverged[id] = why
		}
	}
	st, err := r.nodesState(ctx, true)
	if err != nil {
		return err
	}
	r.res.HeapInuse, r.res.Goroutines = st.HeapInuse, st.Goroutines
	r.res.Check = Compare(allocs, st, unconverged)
	if data, err := json.MarshalIndent(map[string]any{"servers": allocs, "nodes": st, "check": r.res.Check}, "", "  "); err == nil {
		if err := os.WriteFile(filepath.Join(r.opts.Dir, "views.json"), data, 0o644); err != nil {
			r.logf("saving the views: %v", err)
		}
	}
	for _, l := range r.res.Check.Lost {
		r.logf("lost: %s", l)
	}
	for _, u := range r.res.Check.Unconverged {
		r.logf("not converged: %s", u)
	}
	return nil
}

// nodesState reads the simulated nodes' own view of their allocations
// and the simulators' figures, merged; without the nodes unless withNodes.
func (r *run) nodesState(ctx context.Context, withNodes bool) (*NodesState, error) {
	// A simulator of hundreds of nodes on a loaded machine takes its time.
	ctx, cancel := context.WithTimeout(ctx, nodesStateTimeout)
	defer cancel()
	query := ""
	if !withNodes {
		query = "?nodes=false"
	}
	var states []*NodesState
	for _, url := range r.sims.stateURLs() {
		st, err := readState(ctx, url+query)
		if err != nil {
			return nil, err
		}
		states = append(states, st)
	}
	return mergeStates(states), nil
}

// nodesStateTimeout bounds reading the nodes' own view.
const nodesStateTimeout = 5 * time.Minute

// readRSS reads VmRSS and VmHWM from /proc/<pid>/status.
func readRSS(pid int) (cur, peak uint64, err error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0, 0, err
	}
	return parseStatus(string(data))
}

// parseStatus reads VmRSS and VmHWM (kB) of a /proc/<pid>/status file, in
// bytes.
func parseStatus(data string) (cur, peak uint64, err error) {
	found := 0
	for _, line := range strings.Split(data, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != "VmRSS:" && f[0] != "VmHWM:") {
			continue
		}
		kb, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s %q: %w", f[0], f[1], err)
		}
		if f[0] == "VmRSS:" {
			cur = kb * 1024
		} else {
			peak = kb * 1024
		}
		found++
	}
	if found < 2 {
		return cur, peak, fmt.Errorf("no VmRSS and VmHWM in the status")
	}
	return cur, peak, nil
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
