package scale

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DefaultSizes are `make scale`'s fleet sizes: the largest near where this
// 2-core machine stops keeping up (250 nodes ran clean on 2026-11-30, 500
// did not: the simulated nodes, starved of CPU, missed heartbeats).
var DefaultSizes = []int{100, 250, 400}

// ParseSizes parses -sizes: a comma-separated list of fleet sizes, sorted
// and without duplicates.
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sizes: %q is not a number of nodes", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-sizes %q: no size", s)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// FormatSizes renders sizes as -sizes takes them.
func FormatSizes(sizes []int) string {
	var s []string
	for _, n := range sizes {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}

// Sized returns the scenario for a fleet of n nodes: the same allocations
// per node and jobs, each job's max_parallel a quarter of its count (each
// job rolls in 4 steps), unless keepMaxParallel.
func (s Scenario) Sized(n int, keepMaxParallel bool) Scenario {
	s.Nodes = n
	if !keepMaxParallel {
		s.MaxParallel = max(1, s.Count()/4)
	}
	return s
}
