package experiment

import (
	"flag"
	"fmt"
	"path/filepath"
)

// RunFlags are the run flags the experiment verbs share: -versions,
// -variant, -o and -from (bench adds its rounds, -r).
type RunFlags struct {
	Versions string
	Variants VariantFlag
	Out      string
	From     string
}

// FlagHelp is a verb's help of the run flags; a flag whose help is ""
// is not declared.
type FlagHelp struct {
	Versions, Variant, Out, From string
}

// Flags declares the run flags on fs; out is -o's default.
func (f *RunFlags) Flags(fs *flag.FlagSet, out string, help FlagHelp) {
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
