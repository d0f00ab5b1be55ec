package bench

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/flagargs"
)

// Scenario is what one run does, the same for every binary: the options
// the bench verb takes and passes on to each run in its sandbox.
type Scenario struct {
	Count    int // the job's count
	Clients  int // client agents
	Topology cluster.Topology
	// Settle is the wait after the rolling deployment.
	Settle time.Duration
	// PhaseTimeout bounds each deployment; StartTimeout the cluster start.
	PhaseTimeout time.Duration
	StartTimeout time.Duration
}

// DefaultScenario is the scenario of the headline run.
var DefaultScenario = Scenario{
	Count: 300, Clients: 3, Topology: cluster.Multi,
	Settle: 5 * time.Second, PhaseTimeout: 10 * time.Minute, StartTimeout: 2 * time.Minute,
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

// Flags declares the scenario's flags on fs, defaulting to s's values.
func (s *Scenario) Flags(fs *flag.FlagSet) {
	fs.IntVar(&s.Count, "n", s.Count, "the job's `count`")
	fs.IntVar(&s.Clients, "clients", s.Clients, "client `agents`")
	fs.Var(topologyFlag{&s.Topology}, "topology", "`shape` of the cluster: multi (3 servers and the clients, each on a host of its own: a network namespace on a bridge) or single (1 server and the clients on 127.0.0.1)")
	fs.DurationVar(&s.Settle, "settle", s.Settle, "wait after the rolling deployment before the last reading")
	fs.DurationVar(&s.PhaseTimeout, "phase-timeout", s.PhaseTimeout, "give up on a deployment after this long")
	fs.DurationVar(&s.StartTimeout, "start-timeout", s.StartTimeout, "give up on the cluster's start after this long")
}

// Validate checks the scenario's values.
func (s Scenario) Validate() error {
	if s.Count < 1 || s.Clients < 1 {
		return errors.New("-n and -clients must be at least 1")
	}
	if _, err := cluster.ParseTopology(string(s.Topology)); err != nil {
		return err
	}
	if s.PhaseTimeout <= 0 || s.StartTimeout <= 0 || s.Settle < 0 {
		return errors.New("-phase-timeout and -start-timeout must be positive, -settle not negative")
	}
	return nil
}

// Limit bounds a whole run: cluster start, two deployments, settle, stop.
func (s Scenario) Limit() time.Duration {
	return 2*s.StartTimeout + 2*s.PhaseTimeout + s.Settle + time.Minute
}

// Options configure one scenario run: the scenario plus which binary, where
// and under which label. The bench passes them to the run in its sandbox as
// the flags Flags declares (Args renders them), so they are declared once.
type Options struct {
	Scenario
	Nomad string // the nomad binary
	Dir   string // the run's directory: one subdirectory per agent
	Label string
	Round int
	// DataRoot is where the agents' data dirs go: the run mounts a tmpfs
	// there in the sandbox's private mount namespace, so data dirs cost no
	// disk I/O, vanish with the sandbox, and their paths stay short enough
	// for the unix sockets Nomad makes in them.
	DataRoot string
}

// DefaultDataRoot is the mount point of the run's tmpfs for data dirs.
const DefaultDataRoot = "/tmp/nomadfork-bench"

// Flags declares the run's flags on fs.
func (o *Options) Flags(fs *flag.FlagSet) {
	o.Scenario.Flags(fs)
	fs.StringVar(&o.Nomad, "nomad", o.Nomad, "the nomad `binary`")
	fs.StringVar(&o.Dir, "dir", o.Dir, "the run's `directory`")
	fs.StringVar(&o.Label, "label", o.Label, "the binary's `label`")
	fs.IntVar(&o.Round, "round", o.Round, "the `round`")
	fs.StringVar(&o.DataRoot, "data-root", o.DataRoot, "mount a tmpfs for the agents' data dirs at `dir`")
}

// Args renders the options as the flags Flags declares.
func (o Options) Args() []string { return flagargs.Render(o.Flags) }

// ParseOptions parses the flags Args renders.
func ParseOptions(args []string) (Options, error) {
	o := Options{Scenario: DefaultScenario, Round: 1, DataRoot: DefaultDataRoot}
	if err := flagargs.Parse(RunArg, args, o.Flags, "nomad", "dir"); err != nil {
		return o, err
	}
	return o, o.Validate()
}

// Variant is a binary given with -variant name=path.
type Variant struct{ Name, Path string }

// VariantFlag collects -variant name=path.
type VariantFlag []Variant

func (v *VariantFlag) String() string { return "" }

// Set adds a variant.
func (v *VariantFlag) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want name=/path/to/nomad, got %q", s)
	}
	*v = append(*v, Variant{name, path})
	return nil
}

// Config is the bench verb's options.
type Config struct {
	Scenario
	Quick     bool
	Rounds    int
	Versions  string
	Variants  VariantFlag
	Out       string
	Retry     bool
	Warmup    bool
	BuildOnly bool
	From      string

	set map[string]bool
}

// DefaultRounds is the headline's number of rounds.
const DefaultRounds = 5

// Flags declares the bench verb's flags on fs; out is the default output
// directory.
func (c *Config) Flags(fs *flag.FlagSet, out string) {
	c.Scenario = DefaultScenario
	c.Scenario.Flags(fs)
	fs.BoolVar(&c.Quick, "quick", false, "smoke test: N=30, 1 round, the pinned version and the fork, -topology single, output in <o>/quick (<o>/quick-multi with -topology multi)")
	fs.IntVar(&c.Rounds, "r", DefaultRounds, "`rounds`: runs of each binary, interleaved")
	fs.StringVar(&c.Versions, "versions", "", "comma-separated `labels` to run: the pinned version (unpatched), fork, upstream versions such as "+RefVersion+" (default: the pinned version, fork, "+RefVersion+"; -quick: the first two)")
	fs.Var(&c.Variants, "variant", "also run `name=path`, a nomad binary built elsewhere (a rule variant), labelled name (repeatable)")
	fs.StringVar(&c.Out, "o", out, "output `dir`: binaries, sources, runs, JSON and charts")
	fs.BoolVar(&c.Retry, "retry", true, "run a failed scenario once more (reported)")
	fs.BoolVar(&c.Warmup, "warmup", true, "run the first binary once before the rounds, not counted (-quick: false)")
	fs.BoolVar(&c.BuildOnly, "build-only", false, "build or reuse the binaries, then stop")
	fs.StringVar(&c.From, "from", "", "run nothing: redo the table, goals and charts of a bench.json `file` in its directory, with the labels it holds")
}

// Resolve applies -quick's defaults to the flags not given (set lists the
// given ones, see flag.FlagSet.Visit) and checks the values; it returns
// the labels to build and run, base first, and the results directory.
func (c *Config) Resolve(set map[string]bool, base string) (labels []string, dir string, err error) {
	c.set = set
	labels = []string{base, ForkLabel, RefVersion}
	// The agents run in other directories: binaries and data need a path
	// that does not depend on the working directory.
	if c.Out, err = filepath.Abs(c.Out); err != nil {
		return nil, "", fmt.Errorf("-o: %w", err)
	}
	dir = c.Out
	if c.Quick {
		if !set["n"] {
			c.Count = 30
		}
		if !set["r"] {
			c.Rounds = 1
		}
		if !set["warmup"] {
			c.Warmup = false
		}
		if !set["topology"] {
			c.Topology = cluster.Single
		}
		labels = labels[:2]
		dir = filepath.Join(c.Out, "quick")
		if c.Topology != cluster.Single {
			dir += "-" + string(c.Topology)
		}
	}
	if c.Versions != "" {
		if labels, err = ParseLabels(c.Versions, base); err != nil {
			return nil, "", fmt.Errorf("-versions: %w; other binaries go in -variant", err)
		}
	}
	for _, v := range c.Variants {
		for _, l := range labels {
			if l == v.Name {
				return nil, "", fmt.Errorf("-variant %s: the label is taken", v.Name)
			}
		}
	}
	if len(labels)+len(c.Variants) == 0 {
		return nil, "", errors.New("nothing to run")
	}
	if c.Rounds < 1 {
		return nil, "", errors.New("-n and -r must be at least 1")
	}
	if err := c.Scenario.Validate(); err != nil {
		return nil, "", err
	}
	return labels, dir, nil
}

// ParseLabels parses a comma-separated list of binary labels: the pinned
// version base (unpatched), the fork, or another upstream version.
func ParseLabels(list, base string) ([]string, error) {
	var labels []string
	for _, l := range strings.Split(list, ",") {
		l = strings.TrimSpace(l)
		if l != base && l != ForkLabel && !semver.IsValid(l) {
			return nil, fmt.Errorf("unknown label %q (want %s, %s or an upstream version such as %s)", l, base, ForkLabel, RefVersion)
		}
		for _, seen := range labels {
			if seen == l {
				return nil, fmt.Errorf("%s given twice", l)
			}
		}
		labels = append(labels, l)
	}
	return labels, nil
}
