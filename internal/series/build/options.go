package build

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
