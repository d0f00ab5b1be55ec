package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

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

// Run is the bench verb with cfg: it redraws a saved report (-from), or
// builds or reuses the binaries and runs the rounds.
func Run(ctx context.Context, s experiment.Start, cfg Config) error {
	return experiment.Run(ctx, s, cfg.From, redraw, func(ctx context.Context, p *pin.Pin, self string) error {
		base := p.Version()
		labels, resultsDir, err := cfg.Resolve(s.Given, base)
		if err != nil {
			return cli.UsageError{Err: err}
		}
		bins, err := s.Binaries(ctx, p, cfg.Out, labels, cfg.Variants)
		if err != nil {
			return err
		}
		if cfg.BuildOnly {
			for _, bin := range bins {
				fmt.Fprintf(s.Stdout, "%-10s %s\n", bin.Label, bin.Path)
			}
			return nil
		}
		r := &Runner{
			Scenario: cfg.Scenario, Topologies: cfg.Topologies, Rounds: cfg.Rounds, Binaries: bins, Dir: resultsDir, Retry: cfg.Retry, Warmup: cfg.Warmup,
			Self: self, Command: s.Command, Base: base, Fork: experiment.ForkLabel, Ref: experiment.RefVersion,
			Stdout: s.Stdout, Stderr: s.Stderr,
		}
		rep, failed, err := r.Run(ctx)
		if err != nil {
			return err
		}
		if err := WriteResults(rep, resultsDir, s.Stdout); err != nil {
			return err
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d run(s) failed (agent logs under %s)", failed, len(rep.Runs), filepath.Join(resultsDir, "runs"))
		}
		return nil
	})
}

// redraw writes the results of the report saved at path again, next to
// it, with the labels it holds.
func redraw(w io.Writer, path string) error {
	rep, err := ReadReport(path)
	if err != nil {
		return err
	}
	return WriteResults(rep, filepath.Dir(path), w)
}
