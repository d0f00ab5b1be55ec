package faults

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/flagargs"
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
	// RunOptions are the binary under test, its label, the run's
	// directory and the data dirs' tmpfs.
	experiment.RunOptions
	// Upstream and UpstreamLabel are the pinned version's unpatched
	// binary, which the upgrade and mixed scenarios run beside Nomad.
	Upstream      string
	UpstreamLabel string
	Count         int
	MaxParallel   int
	// Timing: PhaseTimeout (-deploy-timeout) bounds a deployment,
	// StartTimeout the cluster's start; Settle is the wait after
	// convergence before the views are read, so updates a client holds
	// back on purpose (a batching interval) are not counted as lost.
	experiment.Timing
	// ConvergeTimeout bounds the wait for the cluster to converge after
	// the fault ends.
	ConvergeTimeout time.Duration
}

// DefaultOptions are the scenarios' defaults: a small job, so runs are
// about correctness, not load.
var DefaultOptions = Options{
	Count: 30, MaxParallel: 10, RunOptions: experiment.RunOptions{DataRoot: "/tmp/nomadfork-faults"},
	Timing:          experiment.Timing{PhaseTimeout: 4 * time.Minute, StartTimeout: 2 * time.Minute, Settle: 5 * time.Second},
	ConvergeTimeout: 4 * time.Minute,
}

// Flags declares the run's flags on fs.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Fault, "fault", o.Fault, "the scenario")
	o.RunOptions.Flags(fs)
	fs.StringVar(&o.Upstream, "upstream", o.Upstream, "the unpatched upstream `binary` the upgrade and mixed scenarios run beside -nomad")
	fs.StringVar(&o.UpstreamLabel, "upstream-label", o.UpstreamLabel, "the upstream binary's `label`")
	o.ScenarioFlags(fs)
}

// ScenarioFlags declares the flags the faults verb shares with each run.
func (o *Options) ScenarioFlags(fs *flag.FlagSet) {
	o.Timing.Flags(fs, experiment.TimingHelp{PhaseFlag: "deploy-timeout", Phase: "give up on a deployment after this long",
		Start: "give up on the cluster's start after this long", Settle: "wait after convergence before comparing the views"})
	fs.IntVar(&o.Count, "n", o.Count, "the job's `count`")
	fs.IntVar(&o.MaxParallel, "max-parallel", o.MaxParallel, "the job's update max_parallel")
	fs.DurationVar(&o.ConvergeTimeout, "converge-timeout", o.ConvergeTimeout, "give up waiting for convergence after the fault this long")
}

// Validate checks the values.
func (o Options) Validate() error {
	if o.Count < 3 || o.MaxParallel < 1 {
		return errors.New("-n must be at least 3 and -max-parallel at least 1")
	}
	if o.ConvergeTimeout <= 0 {
		return errors.New("-converge-timeout must be positive")
	}
	return o.Timing.Validate("deploy-timeout")
}

// Limit bounds a whole run: start, the initial deployment, registering
// and the rolling deployment's start, the fault (at most 3 minutes),
// convergence, the settle, reading and stopping.
func (o Options) Limit() time.Duration {
	return 2*o.StartTimeout + 2*o.PhaseTimeout + o.ConvergeTimeout + o.Settle + 10*time.Minute
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
