package status

import (
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/cli/clitest"
)

// status's -markdown and -doc go with -all-lines, and one at a time: with
// both, -doc would be silently ignored.
func TestOptionsCheck(t *testing.T) {
	clitest.CheckUsage(t, func() *Options { return new(Options) }, map[string]string{
		"":                          "",
		"-against v1.5.6":           "",
		"-all-lines -markdown":      "",
		"-all-lines -doc":           "",
		"-markdown":                 "go with -all-lines",
		"-doc":                      "go with -all-lines",
		"-all-lines -markdown -doc": "exclude each other",
	})
}
