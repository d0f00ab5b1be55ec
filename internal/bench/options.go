package bench

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
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

// Config is the bench verb's options.
type Config struct {
	Scenario
	// Topologies are the topologies to run, each a cluster per binary
	// and round.
	Topologies []cluster.Topology
	Quick      bool
	Rounds     int
	// RunFlags are -versions, -variant, -o and -from.
	experiment.RunFlags
	Retry     bool
	Warmup    bool
	BuildOnly bool

	set map[string]bool
}

// DefaultRounds is the suite's number of rounds.
const DefaultRounds = 3

// topologiesFlag is a flag.Value for a list of topologies.
type topologiesFlag struct{ t *[]cluster.Topology }

func (f topologiesFlag) String() string {
	if f.t == nil {
		return ""
	}
	var s []string
	for _, t := range *f.t {
		s = append(s, string(t))
	}
	return strings.Join(s, ",")
}

func (f topologiesFlag) Set(s string) error {
	ts, err := ParseTopologies(s)
	if err != nil {
		return err
	}
	*f.t = ts
	return nil
}

// ParseTopologies parses "single", "multi", "single,multi" or "both".
func ParseTopologies(s string) ([]cluster.Topology, error) {
	if s == "both" {
		return append([]cluster.Topology(nil), cluster.Topologies...), nil
	}
	var out []cluster.Topology
	for _, part := range strings.Split(s, ",") {
		t, err := cluster.ParseTopology(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, t) {
			return nil, fmt.Errorf("topology %s given twice", t)
		}
		out = append(out, t)
	}
	return out, nil
}

// Flags declares the bench verb's flags on fs; out is the default output
// directory.
func (c *Config) Flags(fs *flag.FlagSet, out string) {
	c.Scenario = DefaultScenario
	c.Sizes = Sizes{}
	c.Topologies = append([]cluster.Topology(nil), cluster.Topologies...)
	c.Scenario.flags(fs)
	fs.Var(topologiesFlag{&c.Topologies}, "topology", "comma-separated `shapes` of the cluster, each run in turn: "+topologyUsage+"; both is single,multi")
	fs.BoolVar(&c.Quick, "quick", false, "smoke test: every workload at a small N (-n defaults: "+SmokeSizes.String()+"), 1 round, the fork only, -topology single, no warm-up, output in <o>/quick (<o>/quick-multi with -topology multi); a workload whose scenario did not happen fails it")
	fs.IntVar(&c.Rounds, "r", DefaultRounds, "`rounds`: runs of each binary on each topology, interleaved")
	c.RunFlags.Flags(fs, out, experiment.FlagHelp{
		Versions: "comma-separated `labels` to run: the pinned version (unpatched), fork, upstream versions such as " + experiment.RefVersion + " (default: the pinned version, fork, " + experiment.RefVersion + " — once if the pinned version is " + experiment.RefVersion + "; -quick: fork)",
		Variant:  "also run `name=path`, a nomad binary built elsewhere (a rule variant), labelled name (repeatable)",
		Out:      "output `dir`: binaries, sources, runs, JSON and charts",
		From:     "run nothing: redo the tables, summary and charts of a bench.json `file` in its directory, with the labels it holds",
	})
	fs.BoolVar(&c.Retry, "retry", true, "run a failed run once more (reported)")
	fs.BoolVar(&c.Warmup, "warmup", true, "run the first binary once before the rounds, not counted (-quick: false)")
	fs.BoolVar(&c.BuildOnly, "build-only", false, "build or reuse the binaries, then stop")
}

// Resolve applies -quick's defaults to the flags not given (set lists the
// given ones, see flag.FlagSet.Visit) and checks the values; it returns
// the labels to build and run, base first, and the results directory.
func (c *Config) Resolve(set map[string]bool, base string) (labels []string, dir string, err error) {
	c.set = set
	var defaults []string // experiment.DefaultLabels
	// The agents run in other directories: binaries and data need a path
	// that does not depend on the working directory.
	if c.Out, err = c.RunFlags.Dir(""); err != nil {
		return nil, "", err
	}
	dir = c.Out
	if c.Quick {
		sizes := Sizes{}
		for k, v := range SmokeSizes {
			sizes[k] = v
		}
		for k, v := range c.Sizes {
			sizes[k] = v
		}
		c.Sizes = sizes
		if !set["r"] {
			c.Rounds = 1
		}
		if !set["warmup"] {
			c.Warmup = false
		}
		if !set["topology"] {
			c.Topologies = []cluster.Topology{cluster.Single}
		}
		defaults = []string{experiment.ForkLabel}
		dir = filepath.Join(c.Out, "quick")
		if len(c.Topologies) != 1 || c.Topologies[0] != cluster.Single {
			dir += "-" + topologiesName(c.Topologies)
		}
	}
	if labels, err = c.Labels(base, defaults); err != nil {
		return nil, "", err
	}
	if c.Rounds < 1 {
		return nil, "", errors.New("-r must be at least 1")
	}
	c.Topology = c.Topologies[0]
	if err := c.Scenario.Validate(); err != nil {
		return nil, "", err
	}
	return labels, dir, nil
}

// topologiesName joins topology names with "-".
func topologiesName(ts []cluster.Topology) string {
	var s []string
	for _, t := range ts {
		s = append(s, string(t))
	}
	return strings.Join(s, "-")
}
