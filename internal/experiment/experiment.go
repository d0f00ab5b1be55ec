// Package experiment is the frame bench, faults and scale run on, so that
// none of them imports another: the labels of the binaries and their
// resolution, the binaries' builds, the hidden in-sandbox entry point and
// the fresh-sandbox runner, the report header, the one reading of the
// server counters (Counters: summed over the servers), the phase figures
// between two snapshots, one deploy/wait, one `nomad version` probe and
// one view of a job's allocations at rest (Unconverged). The cluster the
// experiments run is package experiment/cluster.
package experiment

// Labels of the binaries the experiments build themselves; the unpatched
// upstream is labelled with the pinned version (v1.5.3).
const (
	ForkLabel = "fork"
	// RefVersion is the newer upstream version the fork is compared with.
	RefVersion = "v1.6.1"
)
