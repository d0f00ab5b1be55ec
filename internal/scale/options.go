// Package scale runs the scale simulation: N simulated client nodes in one
// process (sim/cmd/nodesim, realistic alloc runners) on a host of the
// bench's multi topology, against its 3 servers, deploying jobs of about
// 10 allocations per node (initial and rolling). It reads the servers'
// counters (Node.UpdateAlloc RPCs, Raft applies, summed over the servers), the servers' and the
// simulator's CPU, the deployment times and the simulator's resident
// memory, and checks correctness: every allocation of the new version
// running and healthy on the servers, and the servers' view equal to the
// nodes' own (no lost update). The same run is made with the simulator
// built against the fork and against rule variants of the work tree (such
// as every-tick, v1.5.3's behaviour), each in a fresh sandbox.
package scale

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/flagargs"
)

// Scenario is what one run does, the same for every simulator build.
type Scenario struct {
	Nodes int // simulated nodes
	// AllocsPerNode times Nodes is the allocations the jobs total.
	AllocsPerNode int
	Jobs          int // the allocations are split over this many jobs
	MaxParallel   int // each job's update max_parallel
	MinHealthy    time.Duration
	// Setup, Start and Kill are the realistic runners' delays.
	Setup, Start, Kill time.Duration
	// Workloads are the workloads run, comma-separated (see Workloads);
	// the rolling deployment always.
	Workloads string
	// Timing: Settle is the wait after the rolling deployment before the
	// last reading and the check; PhaseTimeout bounds each deployment,
	// StartTimeout the cluster's start and the nodes' registration.
	experiment.Timing
	// Placement is where the simulated nodes run.
	Placement
}

// DefaultScenario is `make scale`'s size: the largest that runs clean on a
// shared 2-core machine. Memory is not the limit (about 2 MiB per node);
// at 500 nodes the simulated nodes, starved of CPU, miss heartbeats and the
// servers mark them down (see docs/scale.md). max_parallel is a quarter of a
// job's count, so each job rolls in 4 or 5 steps.
var DefaultScenario = Scenario{
	Nodes: 250, AllocsPerNode: 10, Jobs: 10, MaxParallel: 60, MinHealthy: 2 * time.Second,
	Setup: 10 * time.Millisecond, Start: 250 * time.Millisecond, Kill: 50 * time.Millisecond,
	Workloads: "rolling,batch,drain",
	Timing:    experiment.Timing{Settle: 10 * time.Second, PhaseTimeout: 10 * time.Minute, StartTimeout: 5 * time.Minute},
}

// SmokeScenario is the smoke test's: 20 nodes, 200 allocations.
var SmokeScenario = Scenario{
	Nodes: 20, AllocsPerNode: 10, Jobs: 4, MaxParallel: 25, MinHealthy: time.Second,
	Setup: 10 * time.Millisecond, Start: 250 * time.Millisecond, Kill: 50 * time.Millisecond,
	Workloads: WorkloadRolling,
	Timing:    experiment.Timing{Settle: 5 * time.Second, PhaseTimeout: 4 * time.Minute, StartTimeout: 3 * time.Minute},
}

// Count is the allocations of each job.
func (s Scenario) Count() int { return s.Nodes * s.AllocsPerNode / s.Jobs }

// Allocs is the allocations of all jobs.
func (s Scenario) Allocs() int { return s.Count() * s.Jobs }

// Flags declares the scenario's flags on fs, defaulting to s's values.
func (s *Scenario) Flags(fs *flag.FlagSet) {
	s.Timing.Flags(fs, experiment.TimingHelp{PhaseFlag: "phase-timeout", Phase: "give up on a deployment after this long",
		Start: "give up on the cluster's start, and on the nodes' registration, after this long", Settle: "wait after the rolling deployment before the last reading and the check"})
	fs.IntVar(&s.Nodes, "n", s.Nodes, "simulated `nodes`")
	fs.IntVar(&s.AllocsPerNode, "allocs-per-node", s.AllocsPerNode, "the jobs total this many `allocations` per node")
	fs.IntVar(&s.Jobs, "jobs", s.Jobs, "service `jobs` the allocations are split over")
	fs.IntVar(&s.MaxParallel, "max-parallel", s.MaxParallel, "each job's update max_parallel")
	fs.DurationVar(&s.MinHealthy, "min-healthy", s.MinHealthy, "each job's update min_healthy_time")
	fs.DurationVar(&s.Setup, "setup-delay", s.Setup, "simulated task: from received to set up")
	fs.DurationVar(&s.Start, "start-delay", s.Start, "simulated task: from set up to started")
	fs.DurationVar(&s.Kill, "kill-delay", s.Kill, "simulated task: from killing to killed")
	s.Placement.Flags(fs)
	fs.StringVar(&s.Workloads, "workloads", s.Workloads, "comma-separated `workloads`: rolling (always), batch (a batch queue of blocked evaluations), drain (a quarter of the nodes at once)")
}

// Validate checks the values.
func (s Scenario) Validate() error {
	if s.Nodes < 1 || s.AllocsPerNode < 1 || s.Jobs < 1 || s.MaxParallel < 1 {
		return errors.New("-n, -allocs-per-node, -jobs and -max-parallel must be at least 1")
	}
	if s.Count() < 1 {
		return fmt.Errorf("%d nodes × %d allocations do not make %d jobs of at least 1", s.Nodes, s.AllocsPerNode, s.Jobs)
	}
	if s.MinHealthy < 0 || s.Setup < 0 || s.Start < 0 || s.Kill < 0 {
		return errors.New("delays must not be negative")
	}
	if err := s.Placement.Validate(s.Nodes); err != nil {
		return err
	}
	if _, err := parseWorkloads(s.Workloads); err != nil {
		return err
	}
	return s.Timing.Validate("phase-timeout")
}

// Limit bounds a whole run: the cluster's start, the nodes' start and
// registration, the deployments and workloads, the settle, the check and
// the stop.
func (s Scenario) Limit() time.Duration {
	limit := 3*s.StartTimeout + time.Duration(len(s.Phases())-1)*s.PhaseTimeout + s.Settle + 5*time.Minute
	if s.Job() {
		// The placement cluster's start and the instances'.
		limit += 2 * s.StartTimeout
	}
	return limit
}

// Options configure one run: the scenario plus the binaries, where and
// under which label. The verb passes them to the run in its sandbox as the
// flags Flags declares (Args renders them).
type Options struct {
	Scenario
	// RunOptions are the servers' nomad binary, the simulator's label,
	// the run's directory (one subdirectory per process) and the data
	// dirs' tmpfs.
	experiment.RunOptions
	Nodesim string // the simulator binary
}

// DefaultDataRoot is the mount point of the run's tmpfs for data dirs.
const DefaultDataRoot = "/tmp/nomadfork-scale"

// Flags declares the run's flags on fs.
func (o *Options) Flags(fs *flag.FlagSet) {
	o.Scenario.Flags(fs)
	o.RunOptions.Flags(fs)
	fs.StringVar(&o.Nodesim, "nodesim", o.Nodesim, "the simulator `binary`")
}

// Args renders the options as the flags Flags declares.
func (o Options) Args() []string { return flagargs.Render(o.Flags) }

// ParseOptions parses the flags Args renders.
func ParseOptions(args []string) (Options, error) {
	o := Options{Scenario: DefaultScenario, RunOptions: experiment.RunOptions{DataRoot: DefaultDataRoot}}
	if err := flagargs.Parse(RunArg, args, o.Flags, "nomad", "nodesim", "dir"); err != nil {
		return o, err
	}
	return o, o.Validate()
}
