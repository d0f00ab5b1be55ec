package bench

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Report is everything one bench invocation measured; it is written as JSON.
type Report struct {
	// Header is when, what command, on what machine; its Cores is the
	// core count load averages are judged against.
	experiment.Header
	Rounds int    `json:"rounds"`
	Settle string `json:"settle"`
	// Workloads, Sizes and Topologies are what every binary ran: each
	// workload at its size, on a cluster of each topology.
	Workloads  []string `json:"workloads,omitempty"`
	Sizes      Sizes    `json:"sizes,omitempty"`
	Topologies []string `json:"topologies,omitempty"`
	Clients    int      `json:"clients,omitempty"`
	// Counters says where the server counters were read: CountersSummed,
	// or the leader's for reports written before the suite.
	Counters string `json:"counters,omitempty"`
	// Count, Topology and Servers are the shape of reports written before
	// the workload suite (one rolling scenario on one topology).
	Count    int    `json:"count,omitempty"`
	Topology string `json:"topology,omitempty"`
	Servers  int    `json:"servers,omitempty"`
	// Base, Fork and Ref are the labels of the unpatched pinned version
	// (ratios are to its medians), the fork and the newer upstream version
	// the goals compare with: the report is redrawn with these, whatever
	// the pin says later.
	Base    string  `json:"base,omitempty"`
	Fork    string  `json:"fork,omitempty"`
	Ref     string  `json:"ref,omitempty"`
	Seconds float64 `json:"seconds"`
	// Warmup is the run before the first round, not counted; nil if none.
	Warmup   *RoundRun           `json:"warmup,omitempty"`
	Binaries []experiment.Binary `json:"binaries"`
	Runs     []RoundRun          `json:"runs"`
	Tables   []Table             `json:"tables"`
	Goals    []Goal              `json:"goals,omitempty"`
	Charts   []string            `json:"charts,omitempty"`
}

// CountersSummed is Report.Counters of the suite: see experiment.Counters.
const CountersSummed = "summed over the servers"

// upgrade turns a report written before the workload suite — runs of the
// rolling scenario with phases — into one of the rolling workload, so
// -from redraws it.
func (r *Report) upgrade() {
	if len(r.Workloads) > 0 {
		return
	}
	if r.Counters == "" {
		r.Counters = "the leader's"
	}
	topo := r.Topology
	if topo == "" {
		topo = "single" // reports before topologies ran 1 server and 3 clients
	}
	r.Workloads = []string{"rolling"}
	r.Topologies = []string{topo}
	r.Sizes = Sizes{"rolling": r.Count}
	for i := range r.Runs {
		run := &r.Runs[i]
		if run.Topology == "" {
			run.Topology = topo
		}
		if len(run.Workloads) > 0 || len(run.Phases) == 0 {
			continue
		}
		w := WorkloadRun{Name: "rolling", N: run.Count, Latency: "rolling deployment", Phases: run.Phases,
			Figures: map[string]float64{}, Error: run.Error}
		if p := run.Phase(experiment.PhaseRolling); p != nil {
			w.Seconds = p.Seconds
		}
		if p := run.Phase(experiment.PhaseInitial); p != nil {
			w.Figures["initial_seconds"] = p.Seconds
		}
		run.Workloads = []WorkloadRun{w}
	}
}

// Table returns the table of the workload on the topology, or nil.
func (r *Report) Table(workload, topology string) *Table {
	for i := range r.Tables {
		if r.Tables[i].Workload == workload && r.Tables[i].Topology == topology {
			return &r.Tables[i]
		}
	}
	return nil
}

// BaseLabel is the label ratios are to: Base, or for reports written
// before it was recorded, the first binary's (the bench always put the base
// first).
func (r *Report) BaseLabel() string {
	if r.Base != "" {
		return r.Base
	}
	if len(r.Binaries) > 0 {
		return r.Binaries[0].Label
	}
	return ""
}

// ForkLabel is the fork's label (ForkLabel for older reports).
func (r *Report) ForkLabel() string {
	if r.Fork != "" {
		return r.Fork
	}
	return experiment.ForkLabel
}

// RefLabel is the reference version's label (RefVersion for older
// reports).
func (r *Report) RefLabel() string {
	if r.Ref != "" {
		return r.Ref
	}
	return experiment.RefVersion
}

// fillBinaryVersions copies each binary's version and revision from its
// first run that has them.
func (r *Report) fillBinaryVersions() {
	for i := range r.Binaries {
		b := &r.Binaries[i]
		for _, run := range r.Runs {
			if run.Label == b.Label && run.Version != "" {
				b.Version, b.Revision = run.Version, run.Revision
				break
			}
		}
	}
}

// WriteJSON writes the report to file atomically.
func (r *Report) WriteJSON(file string) error { return atomicfile.WriteJSON(file, r) }

// ReadReport reads a report written by WriteJSON.
func ReadReport(file string) (*Report, error) {
	r, err := experiment.ReadReport[Report](file)
	if err != nil {
		return nil, err
	}
	r.upgrade()
	return r, nil
}

// WriteRounds writes, per round, the machine's load: the highest 1-minute
// load average of the round's runs (before each run and at its phase
// edges) and the cores other processes used, with a warning when the load
// average exceeded the core count.
func WriteRounds(w io.Writer, r *Report) {
	if r.Rounds == 0 || len(r.Runs) == 0 {
		return
	}
	cores := r.Cores
	fmt.Fprintf(w, "Load per round (highest 1-minute load average; cores used by other processes than the bench's runs, mean over the round):\n")
	for round := 1; round <= r.Rounds; round++ {
		maxLoad, other, n := 0.0, 0.0, 0
		var labels []string
		for _, run := range r.Runs {
			if run.Round != round {
				continue
			}
			labels = append(labels, run.Label)
			maxLoad = max(maxLoad, run.MaxLoad())
			if run.OtherCores != nil {
				other += *run.OtherCores
				n++
			}
		}
		if len(labels) == 0 {
			continue
		}
		line := fmt.Sprintf("  round %d (%s): load %.1f", round, strings.Join(labels, ", "), maxLoad)
		if n > 0 {
			line += fmt.Sprintf(", others %.2f cores", other/float64(n))
		}
		if cores > 0 && maxLoad > float64(cores) {
			line += fmt.Sprintf("  WARNING: load above the %d cores", cores)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// WriteNotes writes the runs' errors and notes.
func WriteNotes(w io.Writer, r *Report) {
	var lines []string
	for _, run := range r.Runs {
		id := fmt.Sprintf("%s %s round %d", run.Label, run.Topology, run.Round)
		if run.Attempt > 1 {
			lines = append(lines, fmt.Sprintf("  %s: attempt %d (the first failed)", id, run.Attempt))
		}
		if run.Error != "" {
			lines = append(lines, fmt.Sprintf("  %s: FAILED: %s", id, firstLine(run.Error)))
		}
		for _, w := range run.Workloads {
			if w.Error != "" && !strings.Contains(run.Error, w.Error) {
				lines = append(lines, fmt.Sprintf("  %s, %s: FAILED: %s", id, w.Name, firstLine(w.Error)))
			}
			for _, p := range w.Phases {
				for _, n := range p.Notes {
					lines = append(lines, fmt.Sprintf("  %s, %s %s: %s", id, w.Name, p.Name, n))
				}
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "Notes:")
	fmt.Fprintln(w, strings.Join(lines, "\n"))
	fmt.Fprintln(w)
}

// pad right-aligns s in width runes (fmt pads by bytes, and "–" is three).
func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
