package vulns

import (
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// The scan's standard library findings are those of the Go release the
// fork's binaries are built with: tools/vulns/go.mod names the same
// toolchain as build.Toolchain.
func TestScanToolchainIsTheBuilds(t *testing.T) {
	p, err := Tools{ModDir: "../../tools/vulns"}.ReadPins()
	if err != nil {
		t.Fatal(err)
	}
	if p.Toolchain != build.Toolchain {
		t.Fatalf("tools/vulns/go.mod names toolchain %s, builds use %s: set `toolchain %s` there", p.Toolchain, build.Toolchain, build.Toolchain)
	}
}
