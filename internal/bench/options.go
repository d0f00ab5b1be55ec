package bench

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/flagargs"
)

// Scenario is what one run does, the same for every binary: the options
// the bench verb takes and passes on to each run in its sandbox.
type Scenario struct {
	// Workloads are the workloads' names, in the suite's order.
	Workloads []string
	// Sizes override the workloads' N (SuiteSizes otherwise).
	Sizes    Sizes
	Clients  int // client agents
	Topology cluster.Topology
	// Timing: Settle is the wait after each workload before its last
	// reading; PhaseTimeout bounds each wait of a workload (a deployment,
	// all allocations complete...), StartTimeout the cluster start.
	experiment.Timing
}

// DefaultScenario is the scenario of `make bench`: the whole suite.
var DefaultScenario = Scenario{
	Workloads: WorkloadNames(), Sizes: Sizes{},
	Clients: 3, Topology: cluster.Multi,
	Timing: experiment.Timing{Settle: 2 * time.Second, PhaseTimeout: 10 * time.Minute, StartTimeout: 2 * time.Minute},
}

// Size returns the workload's N: the override, else the suite's size.
func (s Scenario) Size(workload string) int {
	if n, ok := s.Sizes[workload]; ok {
		return n
	}
	return SuiteSizes[workload]
}

// topologyFlag is a flag.Value for a topology.
type topologyFlag struct{ t *cluster.Topology }

func (f topologyFlag) String() string {
	if f.t == nil {
		return ""
	}
	return string(*f.t)
}

func (f topologyFlag) Set(s string) error {
	t, err := cluster.ParseTopology(s)
	if err != nil {
		return err
	}
	*f.t = t
	return nil
}

// workloadsFlag is a flag.Value for a list of workloads.
type workloadsFlag struct{ w *[]string }

func (f workloadsFlag) String() string {
	if f.w == nil {
		return ""
	}
	return strings.Join(*f.w, ",")
}

func (f workloadsFlag) Set(s string) error {
	w, err := ParseWorkloads(s)
	if err != nil {
		return err
	}
	*f.w = w
	return nil
}

// sizesFlag is a flag.Value for the workloads' sizes.
type sizesFlag struct{ s *Sizes }

func (f sizesFlag) String() string {
	if f.s == nil {
		return ""
	}
	return f.s.String()
}

func (f sizesFlag) Set(v string) error {
	sz, err := ParseSizes(v)
	if err != nil {
		return err
	}
	if *f.s == nil {
		*f.s = Sizes{}
	}
	for k, n := range sz {
		(*f.s)[k] = n
	}
	return nil
}

// flags declares the scenario's flags but the topology on fs, defaulting
// to s's values.
func (s *Scenario) flags(fs *flag.FlagSet) {
	s.Timing.Flags(fs, experiment.TimingHelp{PhaseFlag: "phase-timeout", Phase: "give up on a workload's wait (a deployment, allocations to complete) after this long",
		Start: "give up on the cluster's start after this long", Settle: "wait after each workload before its last reading"})
	fs.Var(workloadsFlag{&s.Workloads}, "workload", "comma-separated `workloads` to run, or all: "+strings.Join(WorkloadNames(), ", "))
	fs.Var(sizesFlag{&s.Sizes}, "n", "`workload=N,...`: a workload's size instead of the suite's ("+SuiteSizes.String()+")")
	fs.IntVar(&s.Clients, "clients", s.Clients, "client `agents`")
}

// topologyUsage describes the topologies.
const topologyUsage = "multi (3 servers and the clients, each on a host of its own: a network namespace on a bridge) or single (1 server and the clients on 127.0.0.1)"

// Validate checks the scenario's values.
func (s Scenario) Validate() error {
	if s.Clients < 1 {
		return errors.New("-clients must be at least 1")
	}
	if len(s.Workloads) == 0 {
		return errors.New("no workload to run")
	}
	for _, w := range s.Workloads {
		if _, ok := WorkloadByName(w); !ok {
			return fmt.Errorf("unknown workload %q", w)
		}
		if s.Size(w) < 1 {
			return fmt.Errorf("-n %s=%d: must be at least 1", w, s.Size(w))
		}
	}
	if _, err := cluster.ParseTopology(string(s.Topology)); err != nil {
		return err
	}
	return s.Timing.Validate("phase-timeout")
}

// Limit bounds a whole run: cluster start, each workload's waits and
// settle, stop.
func (s Scenario) Limit() time.Duration {
	return 2*s.StartTimeout + time.Duration(len(s.Workloads))*(3*s.PhaseTimeout+s.Settle) + time.Minute
}

// Options configure one scenario run: the scenario plus which binary, where
// and under which label. The bench passes them to the run in its sandbox as
// the flags Flags declares (Args renders them), so they are declared once.
type Options struct {
	Scenario
	// RunOptions are the binary, its label, the run's directory and
	// the data dirs' tmpfs.
	experiment.RunOptions
	Round int
}

// DefaultDataRoot is the mount point of the run's tmpfs for data dirs.
const DefaultDataRoot = "/tmp/nomadfork-bench"

// Flags declares the run's flags on fs.
func (o *Options) Flags(fs *flag.FlagSet) {
	o.Scenario.flags(fs)
	fs.Var(topologyFlag{&o.Topology}, "topology", "`shape` of the cluster: "+topologyUsage)
	o.RunOptions.Flags(fs)
	fs.IntVar(&o.Round, "round", o.Round, "the `round`")
}

// Args renders the options as the flags Flags declares.
func (o Options) Args() []string { return flagargs.Render(o.Flags) }

// ParseOptions parses the flags Args renders.
func ParseOptions(args []string) (Options, error) {
	o := Options{Scenario: DefaultScenario, Round: 1, RunOptions: experiment.RunOptions{DataRoot: DefaultDataRoot}}
	o.Sizes = Sizes{}
	if err := flagargs.Parse(RunArg, args, o.Flags, "nomad", "dir"); err != nil {
		return o, err
	}
	return o, o.Validate()
}
