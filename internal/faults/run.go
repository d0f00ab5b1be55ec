package faults

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/flagargs"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// RunArg is the hidden first argument with which the faults verb
// re-executes the tool inside a sandbox to run one scenario; the tool's
// main function calls ScenarioMain when it sees it.
const RunArg = "__faults-run"

// JobID is the scenarios' job.
const JobID = "faults"

// faultedClient is the client agent the client faults hit.
const faultedClient = "client1"

// metricClientRestarts counts the task restarts a client's task runners
// recorded.
const metricClientRestarts = "nomad_client_allocs_restart"

// Options configure one scenario run. The verb passes them to the run in
// its sandbox as the flags Flags declares (Args renders them).
type Options struct {
	Fault string // the scenario's name
	Nomad string // the nomad binary
	Label string
	// Upstream and UpstreamLabel are the pinned version's unpatched
	// binary, which the upgrade and mixed scenarios run beside Nomad.
	Upstream      string
	UpstreamLabel string
	Dir           string // the run's directory: one subdirectory per agent
	// DataRoot gets a tmpfs for the agents' data dirs (see bench.Options).
	DataRoot    string
	Count       int
	MaxParallel int
	// DeployTimeout bounds a deployment, ConvergeTimeout the wait for the
	// cluster to converge after the fault ends, StartTimeout the cluster's
	// start.
	DeployTimeout   time.Duration
	ConvergeTimeout time.Duration
	StartTimeout    time.Duration
	// Settle is the wait after convergence before the views are read, so
	// updates a client holds back on purpose (a batching interval) are not
	// counted as lost.
	Settle time.Duration
}

// DefaultOptions are the scenarios' defaults: a small job, so runs are
// about correctness, not load.
var DefaultOptions = Options{
	Count: 30, MaxParallel: 10, DataRoot: "/tmp/nomadfork-faults",
	DeployTimeout: 4 * time.Minute, ConvergeTimeout: 4 * time.Minute, StartTimeout: 2 * time.Minute,
	Settle: 5 * time.Second,
}

// Flags declares the run's flags on fs.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Fault, "fault", o.Fault, "the scenario")
	fs.StringVar(&o.Nomad, "nomad", o.Nomad, "the nomad `binary`")
	fs.StringVar(&o.Label, "label", o.Label, "the binary's `label`")
	fs.StringVar(&o.Upstream, "upstream", o.Upstream, "the unpatched upstream `binary` the upgrade and mixed scenarios run beside -nomad")
	fs.StringVar(&o.UpstreamLabel, "upstream-label", o.UpstreamLabel, "the upstream binary's `label`")
	fs.StringVar(&o.Dir, "dir", o.Dir, "the run's `directory`")
	fs.StringVar(&o.DataRoot, "data-root", o.DataRoot, "mount a tmpfs for the agents' data dirs at `dir`")
	o.ScenarioFlags(fs)
}

// ScenarioFlags declares the flags the faults verb shares with each run.
func (o *Options) ScenarioFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.Count, "n", o.Count, "the job's `count`")
	fs.IntVar(&o.MaxParallel, "max-parallel", o.MaxParallel, "the job's update max_parallel")
	fs.DurationVar(&o.DeployTimeout, "deploy-timeout", o.DeployTimeout, "give up on a deployment after this long")
	fs.DurationVar(&o.ConvergeTimeout, "converge-timeout", o.ConvergeTimeout, "give up waiting for convergence after the fault this long")
	fs.DurationVar(&o.StartTimeout, "start-timeout", o.StartTimeout, "give up on the cluster's start after this long")
	fs.DurationVar(&o.Settle, "settle", o.Settle, "wait after convergence before comparing the views")
}

// Validate checks the values.
func (o Options) Validate() error {
	if o.Count < 3 || o.MaxParallel < 1 {
		return errors.New("-n must be at least 3 and -max-parallel at least 1")
	}
	if o.DeployTimeout <= 0 || o.ConvergeTimeout <= 0 || o.StartTimeout <= 0 || o.Settle < 0 {
		return errors.New("the timeouts must be positive, -settle not negative")
	}
	return nil
}

// Limit bounds a whole run: start, the initial deployment, registering
// and the rolling deployment's start, the fault (at most 3 minutes),
// convergence, the settle, reading and stopping.
func (o Options) Limit() time.Duration {
	return 2*o.StartTimeout + 2*o.DeployTimeout + o.ConvergeTimeout + o.Settle + 10*time.Minute
}

// Args renders the options as the flags Flags declares.
func (o Options) Args() []string { return flagargs.Render(o.Flags) }

// ParseOptions parses the flags Args renders.
func ParseOptions(args []string) (Options, error) {
	o := DefaultOptions
	if err := flagargs.Parse(RunArg, args, o.Flags, "nomad", "dir"); err != nil {
		return o, err
	}
	f, err := LookupFault(o.Fault)
	if err != nil {
		return o, err
	}
	if f.Pair() && (o.Upstream == "" || o.UpstreamLabel == "") {
		return o, fmt.Errorf("%s: -upstream and -upstream-label are required", f.Name)
	}
	return o, o.Validate()
}

// Result is one scenario run of one binary.
type Result struct {
	Fault   string `json:"fault"`
	Label   string `json:"label"`
	Version string `json:"version,omitempty"`
	Count   int    `json:"count"`
	Allocs  int    `json:"allocs"` // allocations of the job the servers hold at the end
	Verdict `json:"verdict"`
	// FaultSeconds is how long the fault lasted (from injecting it to its
	// end: a new leader, the client back, the link up, the leader resumed).
	FaultSeconds float64 `json:"fault_seconds"`
	// ConvergeSeconds is the time from the fault's end until the servers'
	// view converged (deployment successful, every allocation of the new
	// version running and healthy, nothing pending, unknown or stopping);
	// nil when it did not converge within the bound.
	ConvergeSeconds *float64 `json:"converge_seconds,omitempty"`
	// RPCs and RaftApplies are the Node.UpdateAlloc RPCs and Raft applies
	// the servers counted from before the rolling deployment to the end,
	// summed over the servers (a killed server's count is lost with it).
	// ExpectedLost are the allocations whose update the control scenario
	// dropped on purpose.
	ExpectedLost []string `json:"expected_lost,omitempty"`
	RPCs         float64  `json:"update_alloc_rpcs"`
	RaftApplies  float64  `json:"raft_applies"`
	TotalSeconds float64  `json:"total_seconds"`
	// Load is the machine's 1-minute load average when the fault ended:
	// times to converge stretch with it.
	Load float64 `json:"load1,omitempty"`
	// Upstream is the label of the upstream binary a pair scenario ran
	// beside Label; Steps are the upgrade scenario's swaps.
	Upstream string        `json:"upstream,omitempty"`
	Steps    []UpgradeStep `json:"steps,omitempty"`
	// Killed is the task (TaskKey) whose process the upgrade control
	// killed while its client was stopped.
	Killed string   `json:"killed,omitempty"`
	Notes  []string `json:"notes,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// upgradeSwaps is the number of swaps of an upgrade run: to the tested
// binary, back, and the control's plain restart.
const upgradeSwaps = 3

// OK reports whether the run shows nothing lost, no duplicate run, and
// convergence.
func (r *Result) OK() bool {
	if f, err := LookupFault(r.Fault); err == nil && f.Upgrade {
		steps := r.upgradeOK
		if f.Control {
			steps = r.controlOK
		}
		return r.Error == "" && steps() && len(r.Lost) == 0 && len(r.Duplicates) == 0 && r.Unchecked == 0 && r.Checked > 0
	}
	return r.Error == "" && r.lostAsExpected() && len(r.Duplicates) == 0 && r.ConvergeSeconds != nil && r.Unchecked == 0
}

// upgradeOK reports whether the upgrade run made both swaps and each was
// ok.
func (r *Result) upgradeOK() bool {
	if len(r.Steps) != upgradeSwaps {
		return false
	}
	for i := range r.Steps {
		if !r.Steps[i].OK() {
			return false
		}
	}
	return true
}

// controlOK reports whether the upgrade control's run found exactly the
// task it killed: the first swap reports problems, each naming the
// killed task's allocation, every other task process kept; the other
// swaps are ok.
func (r *Result) controlOK() bool {
	if len(r.Steps) != upgradeSwaps || r.Killed == "" {
		return false
	}
	first := r.Steps[0]
	alloc, _, _ := strings.Cut(r.Killed, "/")
	if len(first.Problems) == 0 || first.SamePIDs != first.Tasks-1 || first.ReadySeconds == nil || first.UpdateSeconds == nil {
		return false
	}
	for _, p := range append(append([]string(nil), first.Problems...), first.LogErrors...) {
		if !strings.Contains(p, shortID(alloc)) {
			return false
		}
	}
	for i := range r.Steps[1:] {
		if !r.Steps[1+i].OK() {
			return false
		}
	}
	return true
}

// lostAsExpected reports whether the lost updates are exactly the ones
// the run dropped on purpose (none, but in the control scenario).
func (r *Result) lostAsExpected() bool {
	if len(r.Lost) != len(r.ExpectedLost) {
		return false
	}
	want := map[string]bool{}
	for _, id := range r.ExpectedLost {
		want[id] = true
	}
	for _, f := range r.Lost {
		if !want[f.Alloc] {
			return false
		}
	}
	return true
}

// ScenarioMain is the hidden scenario verb, run inside the sandbox with
// the flags Options.Args renders: it runs one scenario and prints its
// result as one line of JSON on stdout. It returns the exit code.
func ScenarioMain(args []string, stdout, stderr io.Writer) int {
	return bench.HiddenMain(RunArg, args, stdout, stderr, ParseOptions, recordedScenario)
}

// recordedScenario runs the scenario and records its error in the result.
func recordedScenario(ctx context.Context, opts Options, log io.Writer) (*Result, error) {
	res, err := RunScenario(ctx, opts, log)
	if err != nil {
		res.Error = err.Error()
	}
	return res, err
}

// run is one scenario run.
type run struct {
	opts  Options
	fault Fault
	log   io.Writer
	c     *cluster.Cluster
	// paused is the agent the fault stopped with SIGSTOP: nobody asks it
	// anything until it resumes.
	paused *cluster.Agent
	res    *Result
}

// RunScenario runs one scenario. It must run inside the sandbox. The
// result is never nil.
func RunScenario(ctx context.Context, opts Options, log io.Writer) (*Result, error) {
	res := &Result{Fault: opts.Fault, Label: opts.Label, Count: opts.Count}
	if f, err := LookupFault(opts.Fault); err == nil && f.Count > 0 {
		res.Count = f.Count
	}
	if f, err := LookupFault(opts.Fault); err == nil && f.Pair() {
		res.Upstream = opts.UpstreamLabel
	}
	start := time.Now()
	defer func() { res.TotalSeconds = time.Since(start).Seconds() }()
	if err := sandbox.Verify(); err != nil {
		return res, fmt.Errorf("refusing to start agents outside the sandbox: %w", err)
	}
	f, err := LookupFault(opts.Fault)
	if err != nil {
		return res, err
	}
	if err := opts.Validate(); err != nil {
		return res, err
	}
	if err := cluster.MountTmpfs(opts.DataRoot); err != nil {
		return res, err
	}
	if out, err := exec.CommandContext(ctx, opts.Nomad, "version").Output(); err == nil {
		res.Version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	}
	r := &run{opts: opts, fault: f, log: log, res: res}
	err = r.run(ctx)
	if r.c != nil {
		if r.paused != nil {
			_ = r.paused.Resume()
		}
		r.c.Stop()
	}
	return res, err
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "    [%s %s] %s\n", r.opts.Label, r.opts.Fault, fmt.Sprintf(format, args...))
}

func (r *run) job(version int) *cluster.Job {
	j := cluster.ServiceJob(JobID, r.count(), version, r.opts.MaxParallel)
	j.TaskGroups[0].Update.MinHealthyTime = time.Second
	j.TaskGroups[0].Update.HealthyDeadline = 2 * time.Minute
	j.TaskGroups[0].Update.ProgressDeadline = 5 * time.Minute
	if d := r.fault.MaxClientDisconnect; d > 0 {
		j.TaskGroups[0].MaxClientDisconnect = &d
	}
	return j
}

func (r *run) run(ctx context.Context) error {
	if r.fault.Upgrade {
		return r.upgrade(ctx)
	}
	t0 := time.Now()
	c, err := cluster.Start(ctx, r.clusterSpec())
	if err != nil {
		return err
	}
	r.c = c
	r.logf("cluster of 3 servers and 3 clients ready in %.1fs", time.Since(t0).Seconds())

	if err := r.register(ctx, 0); err != nil {
		return err
	}
	if err := r.waitDeployment(ctx, 0, r.opts.DeployTimeout); err != nil {
		return fmt.Errorf("initial deployment: %w", err)
	}
	r.logf("initial deployment of %d allocations successful", r.count())

	before := r.counters(ctx)
	if err := r.register(ctx, 1); err != nil {
		return err
	}
	if err := r.waitRolling(ctx); err != nil {
		return err
	}
	faultStart := time.Now()
	faultEnd, err := r.inject(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", r.fault.Name, err)
	}
	r.res.FaultSeconds = faultEnd.Sub(faultStart).Seconds()
	r.res.Load, _ = bench.LoadAverage()
	r.logf("fault over after %.1fs", r.res.FaultSeconds)

	convergeErr := r.waitConverged(ctx, faultEnd)
	if convergeErr == nil {
		s := time.Since(faultEnd).Seconds()
		r.res.ConvergeSeconds = &s
		r.logf("converged %.1fs after the fault", s)
	} else {
		r.logf("did not converge: %v", convergeErr)
		r.res.Notes = append(r.res.Notes, "not converged: "+convergeErr.Error())
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(r.opts.Settle):
	}
	after := r.counters(ctx)
	r.res.RPCs, r.res.RaftApplies = after.sub(before)
	if r.fault.Control {
		id, err := r.dropUpdate(ctx)
		if err != nil {
			return fmt.Errorf("dropping an update: %w", err)
		}
		r.res.ExpectedLost = []string{id}
	}
	if r.fault.Mixed {
		if err := r.checkMixed(ctx); err != nil {
			return err
		}
	}
	if err := r.check(ctx); err != nil {
		return err
	}
	if err := c.CheckAlive(); err != nil {
		return err
	}
	return nil
}

func (r *run) register(ctx context.Context, version int) error {
	return cluster.WaitFor(ctx, fmt.Sprintf("registering job version %d", version), 2*time.Minute, time.Second, func() (bool, error) {
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		api, err := r.api(qctx)
		if err != nil {
			return false, err
		}
		return api.Register(qctx, r.job(version)) == nil, nil
	})
}

// queryTimeout bounds one question to one agent. On a loaded machine
// (load averages of 50 and more on 2 cores, as when a benchmark runs next
// door) servers take seconds to answer; the waits around the questions
// bound the scenario.
const queryTimeout = 15 * time.Second

// api returns the API of a server that is running and not paused,
// preferring the leader.
func (r *run) api(ctx context.Context) (*cluster.Client, error) {
	var fallback *cluster.Client
	var errs []error
	for _, s := range r.c.Servers {
		if exited, _ := s.Exited(); exited || s == r.paused {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		addr, err := s.API.Leader(qctx)
		cancel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if fallback == nil {
			fallback = s.API
		}
		for _, l := range r.c.Servers {
			if l.Spec.RPCAddr() == addr && l != r.paused {
				if exited, _ := l.Exited(); !exited {
					return l.API, nil
				}
			}
		}
	}
	if fallback != nil {
		return fallback, nil
	}
	return nil, fmt.Errorf("no server answers: %w", errors.Join(errs...))
}

// waitDeployment waits until the job version's deployment is successful.
func (r *run) waitDeployment(ctx context.Context, version uint64, timeout time.Duration) error {
	var last *cluster.Deployment
	err := cluster.WaitFor(ctx, fmt.Sprintf("a successful deployment of job version %d", version), timeout, 500*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		defer cancel()
		api, err := r.api(qctx)
		if err != nil {
			return false, err
		}
		d, _, err := api.LatestDeployment(qctx, JobID, 0, 0)
		if err != nil || d == nil || d.JobVersion != version {
			return false, err
		}
		last = d
		switch d.Status {
		case cluster.DeploymentSuccessful:
			return true, nil
		case "failed", "cancelled":
			return false, fmt.Errorf("%w: deployment %s is %s: %s", errDeploymentEnded, d.ID, d.Status, d.StatusDescription)
		}
		return false, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (last: %s %s)", err, last.Status, last.StatusDescription)
	}
	return err
}

var errDeploymentEnded = errors.New("deployment ended")

// waitRolling waits until the rolling deployment is under way: an
// allocation of the new version runs.
func (r *run) waitRolling(ctx context.Context) error {
	return cluster.WaitFor(ctx, "the rolling deployment to start", 2*time.Minute, 200*time.Millisecond, func() (bool, error) {
		allocs, err := r.allocs(ctx)
		if err != nil {
			return false, err
		}
		for _, a := range allocs {
			if a.JobVersion == 1 && a.ClientStatus == StatusRunning {
				return true, nil
			}
		}
		return false, nil
	})
}

func (r *run) allocs(ctx context.Context) ([]cluster.AllocStub, error) {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return nil, err
	}
	return api.Allocations(qctx, JobID)
}

// inject runs the fault and returns when it ended.
func (r *run) inject(ctx context.Context) (time.Time, error) {
	switch r.fault.Name {
	case "leader-kill":
		leader, err := r.c.WaitLeader(ctx, time.Minute)
		if err != nil {
			return time.Time{}, err
		}
		r.logf("killing the leader %s", leader.Spec.Name)
		leader.Kill()
		next, err := r.c.WaitLeader(ctx, 90*time.Second)
		if err != nil {
			return time.Time{}, fmt.Errorf("no new leader: %w", err)
		}
		r.res.Notes = append(r.res.Notes, fmt.Sprintf("leader %s killed, %s took over", leader.Spec.Name, next.Spec.Name))
		return time.Now(), nil
	case "client-restart":
		a := r.c.Agent(faultedClient)
		r.logf("stopping %s", a.Spec.Name)
		if !a.Stop(15 * time.Second) {
			r.res.Notes = append(r.res.Notes, faultedClient+" did not stop within 15s of SIGINT; killed")
		}
		if err := sleep(ctx, 5*time.Second); err != nil {
			return time.Time{}, err
		}
		if err := r.c.Restart(a); err != nil {
			return time.Time{}, err
		}
		r.logf("%s started again on its data dir", a.Spec.Name)
		return time.Now(), nil
	case "partition", "partition-mcd":
		h := r.c.Host(faultedClient)
		r.logf("taking %s's link down", h.Name)
		if err := h.SetLink(ctx, false); err != nil {
			return time.Time{}, err
		}
		var status string
		err := cluster.WaitFor(ctx, "the servers to mark the node down", 3*time.Minute, 500*time.Millisecond, func() (bool, error) {
			s, err := r.nodeStatus(ctx, faultedClient)
			status = s
			return s == "down" || s == "disconnected", err
		})
		// Up again whatever happened: the run goes on or ends cleanly.
		if uerr := h.SetLink(ctx, true); uerr != nil {
			return time.Time{}, errors.Join(err, uerr)
		}
		if err != nil {
			return time.Time{}, err
		}
		r.logf("node %s, link up again", status)
		r.res.Notes = append(r.res.Notes, "the servers marked the node "+status)
		return time.Now(), nil
	case "server-stall":
		leader, err := r.c.WaitLeader(ctx, time.Minute)
		if err != nil {
			return time.Time{}, err
		}
		r.logf("pausing the leader %s for 15s", leader.Spec.Name)
		if err := leader.Pause(); err != nil {
			return time.Time{}, err
		}
		r.paused = leader
		serr := sleep(ctx, 15*time.Second)
		if err := leader.Resume(); err != nil {
			return time.Time{}, err
		}
		r.paused = nil
		if serr != nil {
			return time.Time{}, serr
		}
		r.res.Notes = append(r.res.Notes, "leader "+leader.Spec.Name+" paused 15s")
		return time.Now(), nil
	}
	if r.fault.Control || r.fault.Mixed {
		// The control's fault comes after convergence (dropUpdate); the
		// mixed cluster is the scenario.
		return time.Now(), nil
	}
	return time.Time{}, fmt.Errorf("no injection for %s", r.fault.Name)
}

// dropUpdate makes the client lose one update for real: it cuts client1
// off, restarts the tasks of one of its running allocations through the
// agent's own API (reached from inside its host), and stops the agent
// before it can reconnect. The servers never learn of the restart; the
// client's state database holds it. It returns the allocation's ID.
func (r *run) dropUpdate(ctx context.Context) (string, error) {
	allocs, err := r.allocs(ctx)
	if err != nil {
		return "", err
	}
	node, err := r.node(ctx, faultedClient)
	if err != nil {
		return "", err
	}
	nodeID := node.ID
	id := ""
	for _, a := range allocs {
		if a.NodeID == nodeID && a.DesiredStatus == "run" && a.ClientStatus == StatusRunning {
			id = a.ID
			break
		}
	}
	if id == "" {
		return "", fmt.Errorf("no running allocation on %s", faultedClient)
	}
	agent := r.c.Agent(faultedClient)
	h := agent.Spec.Host
	if err := h.SetLink(ctx, false); err != nil {
		return "", err
	}
	defer func() { _ = h.SetLink(ctx, true) }()
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	local := h.LocalAPI(agent.Spec.HTTPAddr())
	if err := local.RestartAlloc(rctx, id); err != nil {
		return "", fmt.Errorf("restarting %s on %s: %w", shortID(id), faultedClient, err)
	}
	// The task runner counts the restart (client.allocs.restart) as it
	// records it in the task state it persists.
	err = cluster.WaitFor(rctx, "the client to count the restart", 30*time.Second, 200*time.Millisecond, func() (bool, error) {
		m, err := local.Metrics(rctx)
		if err != nil {
			return false, err
		}
		n, _ := m.Value(metricClientRestarts)
		return n >= 1, nil
	})
	if err != nil {
		return "", err
	}
	if !agent.Stop(15 * time.Second) {
		r.res.Notes = append(r.res.Notes, faultedClient+" did not stop within 15s of SIGINT; killed")
	}
	r.logf("restarted %s on %s while cut off, then stopped the agent", shortID(id), faultedClient)
	return id, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func (r *run) nodeStatus(ctx context.Context, name string) (string, error) {
	n, err := r.node(ctx, name)
	return n.Status, err
}

// node returns the servers' view of the client node named name.
func (r *run) node(ctx context.Context, name string) (cluster.NodeStub, error) {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return cluster.NodeStub{}, err
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return cluster.NodeStub{}, err
	}
	for _, n := range nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return cluster.NodeStub{}, fmt.Errorf("no node named %s", name)
}

// waitConverged waits until the servers' view is at rest: the new
// version's deployment successful, Count allocations of it running and
// healthy, none pending or unknown, none stopping that still runs, every
// client's node ready.
func (r *run) waitConverged(ctx context.Context, since time.Time) error {
	remaining := r.opts.ConvergeTimeout - time.Since(since)
	if remaining <= 0 {
		remaining = time.Second
	}
	var why string
	err := cluster.WaitFor(ctx, "convergence", remaining, 500*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		w, err := r.unconverged(ctx)
		why = w
		return err == nil && w == "", err
	})
	if err != nil && why != "" {
		return fmt.Errorf("%w (%s)", err, why)
	}
	return err
}

// unconverged says why the servers' view is not at rest, "" when it is.
func (r *run) unconverged(ctx context.Context) (string, error) {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return "", err
	}
	d, _, err := api.LatestDeployment(qctx, JobID, 0, 0)
	if err != nil {
		return "", err
	}
	if d == nil || d.JobVersion != 1 || d.Status != cluster.DeploymentSuccessful {
		if d != nil && (d.Status == "failed" || d.Status == "cancelled") {
			return "", fmt.Errorf("%w: deployment %s is %s: %s", errDeploymentEnded, d.ID, d.Status, d.StatusDescription)
		}
		return "the deployment is not successful yet", nil
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return "", err
	}
	for _, n := range nodes {
		if n.Status != "ready" {
			return fmt.Sprintf("node %s is %s", n.Name, n.Status), nil
		}
	}
	allocs, err := api.Allocations(qctx, JobID)
	if err != nil {
		return "", err
	}
	return Unconverged(allocs, r.count(), 1), nil
}

// Unconverged says why a job's allocations are not at rest at version,
// "" when they are: count allocations of the version to run, all running
// and healthy; no allocation pending or unknown; none the servers stop
// that still runs.
func Unconverged(allocs []cluster.AllocStub, count int, version uint64) string {
	healthy := 0
	for _, a := range allocs {
		switch {
		case a.ClientStatus == StatusPending || a.ClientStatus == StatusUnknown:
			return fmt.Sprintf("allocation %s is %s", shortID(a.ID), a.ClientStatus)
		case a.DesiredStatus != "run" && a.ClientStatus == StatusRunning:
			return fmt.Sprintf("allocation %s is to %s but still running", shortID(a.ID), a.DesiredStatus)
		case a.DesiredStatus == "run" && a.JobVersion == version && a.ClientStatus == StatusRunning &&
			a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy:
			healthy++
		}
	}
	if healthy != count {
		return fmt.Sprintf("%d of %d allocations of version %d running and healthy", healthy, count, version)
	}
	return ""
}

// counters are the servers' cumulative counters by server name.
type counters map[string][2]float64

func (r *run) counters(ctx context.Context) counters {
	out := counters{}
	for _, s := range r.c.Servers {
		if exited, _ := s.Exited(); exited || s == r.paused {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, queryTimeout)
		m, err := s.API.Metrics(qctx)
		cancel()
		if err != nil {
			continue
		}
		rpcs, _ := m.Value(cluster.MetricUpdateAlloc)
		raft, _ := m.Value(cluster.MetricRaftApply)
		out[s.Spec.Name] = [2]float64{rpcs, raft}
	}
	return out
}

// sub sums, over the servers read both times, the counters' growth; a
// counter that shrank was reset (idle series expire) and counts from 0.
func (c counters) sub(before counters) (rpcs, raft float64) {
	for name, a := range c {
		b := before[name]
		for i, v := range []*float64{&rpcs, &raft} {
			if d := a[i] - b[i]; d >= 0 {
				*v += d
			} else {
				*v += a[i]
			}
		}
	}
	return rpcs, raft
}

// check reads the servers' view, stops the clients, reads each client's
// stored state with `nomad operator client-state`, and compares.
func (r *run) check(ctx context.Context) error {
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	api, err := r.api(qctx)
	if err != nil {
		return err
	}
	allocs, err := api.Allocations(qctx, JobID)
	if err != nil {
		return fmt.Errorf("reading the servers' allocations: %w", err)
	}
	nodes, err := api.Nodes(qctx)
	if err != nil {
		return fmt.Errorf("reading the nodes: %w", err)
	}
	names := map[string]string{}
	for _, n := range nodes {
		names[n.ID] = n.Name
	}
	r.res.Allocs = len(allocs)
	servers := ServerView(allocs, names)

	// The client's state database is open while it runs: stop the clients
	// (their tasks keep running, as on any agent restart) and read it.
	views := map[string]ClientView{}
	for _, a := range r.c.Clients {
		a.Stop(15 * time.Second)
	}
	for _, a := range r.c.Clients {
		view, err := r.clientState(ctx, a)
		if err != nil {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("%s: %v", a.Spec.Name, err))
			r.logf("%s: %v", a.Spec.Name, err)
			views[a.Spec.Name] = nil
			continue
		}
		views[a.Spec.Name] = view
	}
	r.res.Verdict = Check(servers, views)
	if err := os.WriteFile(filepath.Join(r.opts.Dir, "views.json"), mustJSON(map[string]any{"servers": servers, "clients": views, "verdict": r.res.Verdict}), 0o644); err != nil {
		r.logf("saving the views: %v", err)
	}
	r.logf("checked %d allocations: %d lost, %d duplicate runs, %d re-run after a failed restore, %d unchecked", r.res.Checked, len(r.res.Lost), len(r.res.Duplicates), len(r.res.Rerun), r.res.Unchecked)
	for _, f := range r.res.Lost {
		r.logf("lost: %s", f)
	}
	for _, f := range r.res.Duplicates {
		r.logf("duplicate: %s", f)
	}
	return nil
}

func mustJSON(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return []byte(err.Error())
	}
	return data
}

// clientState runs `nomad operator client-state` of the binary the client
// ran last on the stopped client's state directory.
func (r *run) clientState(ctx context.Context, a *cluster.Agent) (ClientView, error) {
	qctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(qctx, a.Nomad(), "operator", "client-state", filepath.Join(a.Spec.Data, "client"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("nomad operator client-state: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	if err := os.WriteFile(filepath.Join(a.Spec.Dir, "client-state.json"), out, 0o644); err != nil {
		r.logf("saving %s's state: %v", a.Spec.Name, err)
	}
	return ParseClientState(out)
}
