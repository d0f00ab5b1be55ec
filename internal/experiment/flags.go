package experiment

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"
)

// RunFlags are the run flags the experiment verbs share: -smoke,
// -versions, -variant, -o and -from (bench has -quick for -smoke, and
// adds its rounds, -r).
type RunFlags struct {
	Smoke    bool
	Versions string
	Variants VariantFlag
	Out      string
	From     string
}

// FlagHelp is a verb's help of the run flags; a flag whose help is ""
// is not declared.
type FlagHelp struct {
	Smoke, Versions, Variant, Out, From string
}

// Flags declares the run flags on fs; out is -o's default.
func (f *RunFlags) Flags(fs *flag.FlagSet, out string, help FlagHelp) {
	if help.Smoke != "" {
		fs.BoolVar(&f.Smoke, "smoke", false, help.Smoke)
	}
	if help.Versions != "" {
		fs.StringVar(&f.Versions, "versions", "", help.Versions)
	}
	if help.Variant != "" {
		fs.Var(&f.Variants, "variant", help.Variant)
	}
	fs.StringVar(&f.Out, "o", out, help.Out)
	fs.StringVar(&f.From, "from", "", help.From)
}

// Dir returns -o made absolute — the agents run in other directories, so
// binaries and data need a path that does not depend on the working
// directory — with sub joined to it unless sub is "".
func (f *RunFlags) Dir(sub string) (string, error) {
	dir, err := filepath.Abs(f.Out)
	if err != nil {
		return "", fmt.Errorf("-o: %w", err)
	}
	if sub != "" {
		dir = filepath.Join(dir, sub)
	}
	return dir, nil
}

// Labels resolves -versions and -variant (ResolveLabels): the labels to
// run, defaults (nil: DefaultLabels(base)) without -versions.
func (f *RunFlags) Labels(base string, defaults []string) ([]string, error) {
	return ResolveLabels(f.Versions, base, defaults, f.Variants)
}

// Given returns the names of the flags given on fs's command line.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// RunOptions say what one scenario run in the sandbox runs, under which
// label and where: the hidden verbs' flags every experiment shares.
type RunOptions struct {
	Nomad string // the nomad binary (the servers' in scale)
	Label string
	Dir   string // the run's directory: one subdirectory per agent
	// DataRoot is where the agents' data dirs go: the run mounts a tmpfs
	// there in the sandbox's private mount namespace, so data dirs cost no
	// disk I/O, vanish with the sandbox, and their paths stay short enough
	// for the unix sockets Nomad makes in them.
	DataRoot string
}

// Flags declares the run options' flags on fs.
func (o *RunOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Nomad, "nomad", o.Nomad, "the nomad `binary`")
	fs.StringVar(&o.Label, "label", o.Label, "the binary's `label`")
	fs.StringVar(&o.Dir, "dir", o.Dir, "the run's `directory`")
	fs.StringVar(&o.DataRoot, "data-root", o.DataRoot, "mount a tmpfs for the agents' data dirs at `dir`")
}

// Timing bounds a scenario run's waits; every experiment has them.
type Timing struct {
	// Settle is the wait after the last phase before the last reading.
	Settle time.Duration
	// PhaseTimeout bounds each wait of a phase (a deployment...);
	// StartTimeout the cluster's start.
	PhaseTimeout time.Duration
	StartTimeout time.Duration
}

// TimingHelp is a verb's help of the timing flags, and the name of its
// phase timeout flag.
type TimingHelp struct {
	Settle, PhaseFlag, Phase, Start string
}

// Flags declares the timing flags on fs, defaulting to t's values.
func (t *Timing) Flags(fs *flag.FlagSet, help TimingHelp) {
	fs.DurationVar(&t.Settle, "settle", t.Settle, help.Settle)
	fs.DurationVar(&t.PhaseTimeout, help.PhaseFlag, t.PhaseTimeout, help.Phase)
	fs.DurationVar(&t.StartTimeout, "start-timeout", t.StartTimeout, help.Start)
}

// Validate checks the values; phaseFlag names the phase timeout's flag.
func (t Timing) Validate(phaseFlag string) error {
	if t.PhaseTimeout <= 0 || t.StartTimeout <= 0 || t.Settle < 0 {
		return fmt.Errorf("-%s and -start-timeout must be positive, -settle not negative", phaseFlag)
	}
	return nil
}
