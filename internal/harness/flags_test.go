package harness

import (
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli/clitest"
)

// baseline refuses a command line that would empty the baseline files
// (-runs 0) or make none of them (two of -race-only, -plain-only,
// -revdeps); a meaningful one passes.
func TestBaselineOptionsCheck(t *testing.T) {
	clitest.CheckUsage(t, func() *BaselineOptions { return new(BaselineOptions) }, map[string]string{
		"":                       "",
		"-race-only -runs 1":     "",
		"-revdeps -keep":         "",
		"-runs 0":                "-runs must be at least 1",
		"-runs -2 -plain-only":   "-runs must be at least 1",
		"-race-only -plain-only": "exclude each other",
		"-plain-only -revdeps":   "exclude each other",
		"-race-only -revdeps -v": "exclude each other",
	})
}
