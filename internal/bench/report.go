package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
)

// Report is everything one bench invocation measured; it is written as JSON.
type Report struct {
	Date      time.Time `json:"date"`
	Command   string    `json:"command"`
	Machine   string    `json:"machine"`
	Count     int       `json:"count"`
	Rounds    int       `json:"rounds"`
	Settle    string    `json:"settle"`
	Seconds   float64   `json:"seconds"`
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
			if b.Label == s.Label {
				src := b.Source
				if src != "external" {
					src = "commit " + short(src)
				}
				head += fmt.Sprintf("; %s (%s)", b.Path, src)
				if b.Variant {
					head += " [variant]"
				}
			}
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  %-26s %10s %s %10s\n", "figure", "median", pad("min–max", 17), "× "+base)
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
			fmt.Fprintf(w, "  %-26s %10s %s %10s\n", f.Name, formatValue(f, st.Median)+unit, pad(rng, 17), ratio)
		}
		fmt.Fprintln(w)
	}
}

// Goal is one of the goals, reported, never asserted.
type Goal struct {
	What   string   `json:"what"`
	Limit  float64  `json:"limit,omitempty"`
	Value  *float64 `json:"value,omitempty"`
	Ref    *float64 `json:"reference,omitempty"` // the same ratio for the reference version
	Met    *bool    `json:"met,omitempty"`
	Detail string   `json:"detail,omitempty"`
}

// Goals evaluates the fork's goals against base and the reference version
// on the report's medians: traffic and deployment ratios, and that the
// fork is not dominated by the reference on the tradeoff chart.
func Goals(r *Report, base, fork, ref string) []Goal {
	f := r.Summary(fork)
	if f == nil || r.Summary(base) == nil {
		return nil
	}
	rf := r.Summary(ref)
	var goals []Goal
	for _, g := range []struct {
		key   string
		what  string
		limit float64
	}{
		{"update_alloc_rpcs", "Node.UpdateAlloc RPCs", 0.65},
		{"raft_applies", "Raft applies", 0.75},
		{"initial_seconds", "initial deployment time", 1.05},
		{"rolling_seconds", "rolling deployment time", 1.05},
	} {
		goal := Goal{What: fmt.Sprintf("%s %s ≤ %.2f × %s", fork, g.what, g.limit, base), Limit: g.limit}
		if st, ok := f.Stats[g.key]; ok && st.Ratio != nil {
			v := *st.Ratio
			met := v <= g.limit
			goal.Value, goal.Met = &v, &met
		}
		if rf != nil {
			if st, ok := rf.Stats[g.key]; ok && st.Ratio != nil {
				v := *st.Ratio
				goal.Ref = &v
			}
		}
		goals = append(goals, goal)
	}
	if rf != nil {
		goal := Goal{What: fmt.Sprintf("%s not dominated by %s (fewer RPCs or a faster rolling deployment)", fork, ref)}
		fr, ok1 := f.Stats["update_alloc_rpcs"]
		fd, ok2 := f.Stats["rolling_seconds"]
		rr, ok3 := rf.Stats["update_alloc_rpcs"]
		rd, ok4 := rf.Stats["rolling_seconds"]
		if ok1 && ok2 && ok3 && ok4 {
			met := fr.Median < rr.Median || fd.Median < rd.Median
			goal.Met = &met
			goal.Detail = fmt.Sprintf("%s %.0f RPCs / %.1f s rolling; %s %.0f RPCs / %.1f s", fork, fr.Median, fd.Median, ref, rr.Median, rd.Median)
		}
		goals = append(goals, goal)
	}
	return goals
}

// WriteGoals writes the goals, one a line.
func WriteGoals(w io.Writer, r *Report, ref string) {
	goals := r.Goals
	if len(goals) == 0 {
		return
	}
	fmt.Fprintf(w, "Goals (set for N=300, medians of 3 rounds; this run: N=%d, %d round(s); reported, not asserted):\n", r.Count, r.Rounds)
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
		if g.Ref != nil {
			line += fmt.Sprintf(" (%s: %.3f)", ref, *g.Ref)
		}
		if g.Detail != "" {
			line += ": " + g.Detail
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

// ratioOrNaN returns the stat's ratio, or NaN.
func ratioOrNaN(st Stat, ok bool) float64 {
	if !ok || st.Ratio == nil {
		return math.NaN()
	}
	return *st.Ratio
}
