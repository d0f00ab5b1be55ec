package main

import (
	"path/filepath"
	"testing"
)

// release is built only with the pinned toolchain: the tests' synthetic
// proxy makes builds use the installed one (NOMADFORK_GOTOOLCHAIN), which
// release refuses; -verify without a release says how to make one. The
// release itself is tested on a toy tree in internal/release and on the
// real tree by make test-full.
func TestReleaseRefusals(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	r := p.mustFail("release")
	containsAll(t, "release", r.stderr, "NOMADFORK_GOTOOLCHAIN is set", "pinned Go")
	r = p.mustFail("release", "-verify")
	containsAll(t, "release -verify", r.stderr, filepath.Join("dist", "1.0.0+fork.1", "SHA256SUMS")+" does not exist", "`nomadfork release` first")
	// build -test keeps the fixture's code building like the bench's binaries.
	r = p.mustRun("build", "-test", "-metadata", "fork.x", "-o", filepath.Join(p.dir, "bin", "x"))
	containsAll(t, "build -test", r.stdout, "v1.0.0+fork.x", "test build")
}
