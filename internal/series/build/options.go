package build

import "flag"

// Options are the build verb's flags.
type Options struct {
	// Out is the binary; Tree, if set, the nomad tree to build instead of
	// the line's work tree; Metadata the version metadata instead of the
	// fork release.
	Out, Tree, Metadata string
	// CheckUI checks that the binary serves the web UI; Test builds with
	// the Test profile.
	CheckUI, Test bool
}

// Flags declares the options' flags on fs; -o defaults to o.Out.
func (o *Options) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "o", o.Out, "write the binary to `file`")
	fs.BoolVar(&o.CheckUI, "check-ui", false, "then start a dev agent of the binary in the sandbox and check that /ui/ serves the web UI")
	fs.StringVar(&o.Tree, "tree", "", "build the nomad tree in `dir` (such as a bench variant's linked work tree, scripts/build-variant.sh) instead of the line's work tree")
	fs.BoolVar(&o.Test, "test", false, "build like the bench's binaries: the release flags without the release tag, which keeps upstream's mock_driver")
	fs.StringVar(&o.Metadata, "metadata", "", "the version metadata (such as fork.seed) instead of the fork release from CHANGELOG.md")
}
