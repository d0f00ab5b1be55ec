package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
)

// Report is everything one bench invocation measured; it is written as JSON.
type Report struct {
	Date    time.Time `json:"date"`
	Command string    `json:"command"`
	Machine string    `json:"machine"`
	// Cores is the machine's core count, against which load averages are
	// judged.
	Cores  int    `json:"cores,omitempty"`
	Count  int    `json:"count"`
	Rounds int    `json:"rounds"`
	Settle string `json:"settle"`
	// Topology, Servers and Clients are the cluster's shape.
	Topology string `json:"topology,omitempty"`
	Servers  int    `json:"servers,omitempty"`
	Clients  int    `json:"clients,omitempty"`
	// Base, Fork and Ref are the labels of the unpatched pinned version
	// (ratios are to its medians), the fork and the newer upstream version
	// the goals compare with: the report is redrawn with these, whatever
	// the pin says later.
	Base    string  `json:"base,omitempty"`
	Fork    string  `json:"fork,omitempty"`
	Ref     string  `json:"ref,omitempty"`
	Seconds float64 `json:"seconds"`
	// Warmup is the run before the first round, not counted; nil if none.
	Warmup    *Run      `json:"warmup,omitempty"`
	Binaries  []Binary  `json:"binaries"`
	Runs      []Run     `json:"runs"`
	Summaries []Summary `json:"summaries"`
	Goals     []Goal    `json:"goals,omitempty"`
	Charts    []string  `json:"charts,omitempty"`
}

// Summary returns the label's summary, or nil.
func (r *Report) Summary(label string) *Summary {
	for i := range r.Summaries {
		if r.Summaries[i].Label == label {
			return &r.Summaries[i]
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
	return ForkLabel
}

// RefLabel is the reference version's label (RefVersion for older
// reports).
func (r *Report) RefLabel() string {
	if r.Ref != "" {
		return r.Ref
	}
	return RefVersion
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
func (r *Report) WriteJSON(file string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(file, append(data, '\n'), 0o644)
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(file string) (*Report, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", file, err)
	}
	return &r, nil
}

// formatValue prints v as the figure prints.
func formatValue(f Figure, v float64) string {
	if f.Unit == "MB" {
		return fmt.Sprintf("%.2f", v)
	}
	if f.Float {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// WriteTable writes a table per label: median, min–max and the ratio of
// the median to base's.
func WriteTable(w io.Writer, r *Report, base string) {
	for _, s := range r.Summaries {
		head := fmt.Sprintf("%s: %d run(s)", s.Label, s.Runs)
		if s.Failed > 0 {
			head += fmt.Sprintf(", %d failed", s.Failed)
		}
		for _, b := range r.Binaries {
			if b.Label != s.Label {
				continue
			}
			if b.Version != "" {
				head += "; " + b.Version
				if b.Revision != "" {
					head += " (revision " + short(b.Revision) + ")"
				}
			}
			src := b.Source
			if src != "external" {
				src = "commit " + short(src)
			}
			head += fmt.Sprintf("; %s (%s)", b.Path, src)
			if b.Variant {
				head += " [variant]"
			}
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %-26s %10s %s %10s\n", "figure", "median", pad("min–max", 19), "× "+base)
		for _, f := range Figures {
			st, ok := s.Stats[f.Key]
			if !ok {
				fmt.Fprintf(w, "  %-26s %10s\n", f.Name, "n/a")
				continue
			}
			unit := ""
			if f.Unit != "" {
				unit = " " + f.Unit
			}
			ratio := "–"
			if st.Ratio != nil {
				ratio = fmt.Sprintf("%.2f", *st.Ratio)
			}
			rng := formatValue(f, st.Min) + "–" + formatValue(f, st.Max) + unit
			fmt.Fprintf(w, "  %-26s %10s %s %10s\n", f.Name, formatValue(f, st.Median)+unit, pad(rng, 19), ratio)
		}
		fmt.Fprintln(w)
	}
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

// Goal is one of the goals, reported, never asserted.
type Goal struct {
	What   string   `json:"what"`
	Limit  float64  `json:"limit,omitempty"`
	Value  *float64 `json:"value,omitempty"`
	Met    *bool    `json:"met,omitempty"`
	Detail string   `json:"detail,omitempty"`
}

// Goals evaluates, for the fork and every variant, on the report's medians,
// whether it dominates the reference version: RPCs and Raft applies no more
// than the reference's, both deployment phases no slower than base's.
func Goals(r *Report) []Goal {
	base, ref := r.BaseLabel(), r.RefLabel()
	rf := r.Summary(ref)
	if r.Summary(base) == nil {
		return nil
	}
	var goals []Goal
	for _, s := range r.Summaries {
		if s.Label != r.ForkLabel() && !s.Variant {
			continue
		}
		var checks []Goal
		for _, g := range []struct{ key, what string }{
			{"update_alloc_rpcs", "Node.UpdateAlloc RPCs"},
			{"raft_applies", "Raft applies"},
		} {
			goal := Goal{What: fmt.Sprintf("%s %s ≤ %s's", s.Label, g.what, ref), Limit: 1}
			st, ok1 := s.Stats[g.key]
			if rf != nil {
				rs, ok2 := rf.Stats[g.key]
				if ok1 && ok2 && rs.Median > 0 {
					v := st.Median / rs.Median
					met := st.Median <= rs.Median
					goal.Value, goal.Met = &v, &met
					goal.Detail = fmt.Sprintf("%.0f vs %.0f", st.Median, rs.Median)
				}
			}
			checks = append(checks, goal)
		}
		for _, g := range []struct{ key, what string }{
			{"initial_seconds", "initial deployment"},
			{"rolling_seconds", "rolling deployment"},
		} {
			goal := Goal{What: fmt.Sprintf("%s %s ≤ 1.00 × %s", s.Label, g.what, base), Limit: 1}
			if st, ok := s.Stats[g.key]; ok && st.Ratio != nil {
				v := *st.Ratio
				met := v <= 1
				goal.Value, goal.Met = &v, &met
			}
			checks = append(checks, goal)
		}
		all := Goal{What: fmt.Sprintf("%s dominates %s (all four)", s.Label, ref)}
		met := true
		for _, c := range checks {
			if c.Met == nil {
				all.Met = nil
				met = false
				break
			}
			met = met && *c.Met
			all.Met = &met
		}
		goals = append(goals, checks...)
		goals = append(goals, all)
	}
	return goals
}

// WriteGoals writes the goals, one a line.
func WriteGoals(w io.Writer, r *Report) {
	goals := r.Goals
	if len(goals) == 0 {
		return
	}
	fmt.Fprintf(w, "Goals (on medians; N=%d, %d round(s); reported, not asserted):\n", r.Count, r.Rounds)
	for _, g := range goals {
		status := "n/a"
		if g.Met != nil {
			status = "MISSED"
			if *g.Met {
				status = "met"
			}
		}
		line := fmt.Sprintf("  %-7s %s", status, g.What)
		if g.Value != nil {
			line += fmt.Sprintf(": %.3f", *g.Value)
		}
		if g.Detail != "" {
			line += " (" + g.Detail + ")"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// WriteNotes writes the runs' errors and notes.
func WriteNotes(w io.Writer, r *Report) {
	var lines []string
	for _, run := range r.Runs {
		id := fmt.Sprintf("%s round %d", run.Label, run.Round)
		if run.Attempt > 1 {
			lines = append(lines, fmt.Sprintf("  %s: attempt %d (the first failed)", id, run.Attempt))
		}
		if run.Error != "" {
			lines = append(lines, fmt.Sprintf("  %s: FAILED: %s", id, firstLine(run.Error)))
		}
		for _, p := range run.Phases {
			for _, n := range p.Notes {
				lines = append(lines, fmt.Sprintf("  %s, %s: %s", id, p.Name, n))
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
