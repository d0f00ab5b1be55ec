package bench

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// servers is the number of servers of a topology, by name.
func servers(topology string) int {
	if topology == "multi" {
		return 3
	}
	return 1
}

// formatStat prints a stat as "median (min–max)".
func formatStat(st Stat, unit string) string {
	f := "%.0f"
	if unit == "s" {
		f = "%.2f"
	}
	if st.N <= 1 || st.Min == st.Max {
		return fmt.Sprintf(f, st.Median)
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", st.Median, st.Min, st.Max)
}

func formatRatio(st Stat) string {
	if st.Ratio == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", *st.Ratio)
}

// extraKeys returns the table's other figures' keys, sorted.
func extraKeys(t *Table) []string {
	seen := map[string]bool{}
	for _, s := range t.Labels {
		for k := range s.Stats {
			seen[k] = true
		}
	}
	for _, f := range Figures {
		delete(seen, f.Key)
	}
	delete(seen, FloorKey)
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WriteTable writes one workload's table: per label the latency figure,
// RPCs, Raft applies and server CPU (median and min–max over the rounds,
// × base's median), then the floor row, then the workload's other figures.
func WriteTable(w io.Writer, r *Report, t *Table) {
	fmt.Fprintf(w, "%s (N=%d), %s topology (%d server(s), %d clients): latency = %s\n",
		t.Workload, t.N, t.Topology, servers(t.Topology), r.Clients, t.Latency)
	fmt.Fprintf(w, "  %-14s %5s  %-22s %5s  %-18s %5s  %-18s %5s  %-18s %5s\n",
		"binary", "runs", "latency (s)", "×", "UpdateAlloc RPCs", "×", "Raft applies", "×", "server CPU (s)", "×")
	for _, s := range t.Labels {
		name := s.Label
		if s.Variant {
			name += "*"
		}
		runs := fmt.Sprintf("%d", s.Runs)
		if s.Failed > 0 {
			runs += fmt.Sprintf("+%d!", s.Failed)
		}
		line := fmt.Sprintf("  %-14s %5s", name, runs)
		for _, f := range Figures {
			st, ok := s.Stats[f.Key]
			if !ok {
				line += fmt.Sprintf("  %s %5s", padRight("n/a", widthOf(f)), "")
				continue
			}
			line += fmt.Sprintf("  %s %5s", padRight(formatStat(st, f.Unit), widthOf(f)), formatRatio(st))
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	if t.Floor != nil {
		fmt.Fprintf(w, "  %-14s %5d  %s %5s  %s\n", "floor", t.Floor.N, padRight("", 22), "",
			padRight(formatStat(*t.Floor, ""), 18))
	}
	for _, k := range extraKeys(t) {
		var parts []string
		for _, s := range t.Labels {
			if st, ok := s.Stats[k]; ok {
				unit := ""
				if strings.HasSuffix(k, "_seconds") {
					unit = "s"
				}
				parts = append(parts, s.Label+" "+formatStat(st, unit))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", k, strings.Join(parts, "; "))
		}
	}
	fmt.Fprintln(w)
}

func widthOf(f Figure) int {
	if f.Key == "seconds" {
		return 22
	}
	return 18
}

// padRight left-aligns s in width runes.
func padRight(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// WriteSummary writes the summary table: per workload and topology, each
// label's median latency and RPCs × base's, and the floor's RPCs × base's;
// a goal missed is marked with !.
func WriteSummary(w io.Writer, r *Report) {
	base := r.BaseLabel()
	var labels []string
	for _, b := range r.Binaries {
		labels = append(labels, b.Label)
	}
	if len(labels) == 0 && len(r.Tables) > 0 {
		for _, s := range r.Tables[0].Labels {
			labels = append(labels, s.Label)
		}
	}
	missed := map[string]bool{}
	for _, g := range r.Goals {
		if g.Met != nil && !*g.Met {
			missed[g.Label+"/"+g.Workload+"/"+g.Topology+"/"+g.Figure] = true
		}
	}
	fmt.Fprintf(w, "Summary: latency × %s / Node.UpdateAlloc RPCs × %s (medians; ! = goal missed: latency > 1.00 × %s, RPCs > %s's)\n", base, base, base, r.RefLabel())
	head := fmt.Sprintf("  %-14s %-7s", "workload", "topo")
	for _, l := range labels {
		head += fmt.Sprintf(" %15s", l)
	}
	head += fmt.Sprintf(" %9s", "floor")
	fmt.Fprintln(w, head)
	for i := range r.Tables {
		t := &r.Tables[i]
		line := fmt.Sprintf("  %-14s %-7s", t.Workload, t.Topology)
		for _, l := range labels {
			s := t.Label(l)
			cell := "–"
			if s != nil && s.Runs > 0 {
				lat, rpc := "–", "–"
				if st, ok := s.Stats["seconds"]; ok && st.Ratio != nil {
					lat = fmt.Sprintf("%.2f", *st.Ratio)
					if missed[l+"/"+t.Workload+"/"+t.Topology+"/latency"] {
						lat += "!"
					}
				}
				if st, ok := s.Stats["update_alloc_rpcs"]; ok && st.Ratio != nil {
					rpc = fmt.Sprintf("%.2f", *st.Ratio)
					if missed[l+"/"+t.Workload+"/"+t.Topology+"/rpcs"] {
						rpc += "!"
					}
				}
				cell = lat + " / " + rpc
			}
			line += fmt.Sprintf(" %15s", cell)
		}
		floor := "–"
		if b := t.Label(base); b != nil && t.Floor != nil {
			if st, ok := b.Stats["update_alloc_rpcs"]; ok && st.Median > 0 {
				floor = fmt.Sprintf("%.2f", t.Floor.Median/st.Median)
			}
		}
		line += fmt.Sprintf(" %9s", floor)
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// Goal is one of the rule's goals in one table, reported, never asserted.
type Goal struct {
	Label    string `json:"label"`
	Workload string `json:"workload"`
	Topology string `json:"topology"`
	// Figure is "latency" (median ≤ 1.00 × base's) or "rpcs" (median ≤
	// the reference version's).
	Figure string   `json:"figure"`
	Value  *float64 `json:"value,omitempty"`
	Met    *bool    `json:"met,omitempty"`
}

// Goals evaluates, for the fork and every variant, in every table, on the
// medians: latency ≤ 1.00 × base's, Node.UpdateAlloc RPCs ≤ the reference
// version's.
func Goals(r *Report) []Goal {
	base, ref := r.BaseLabel(), r.RefLabel()
	var goals []Goal
	for i := range r.Tables {
		t := &r.Tables[i]
		rf := t.Label(ref)
		for _, s := range t.Labels {
			if s.Label != r.ForkLabel() && !s.Variant {
				continue
			}
			lat := Goal{Label: s.Label, Workload: t.Workload, Topology: t.Topology, Figure: "latency"}
			if st, ok := s.Stats["seconds"]; ok && st.Ratio != nil && t.Label(base) != nil {
				v := *st.Ratio
				met := v <= 1
				lat.Value, lat.Met = &v, &met
			}
			rpc := Goal{Label: s.Label, Workload: t.Workload, Topology: t.Topology, Figure: "rpcs"}
			if rf != nil {
				st, ok1 := s.Stats["update_alloc_rpcs"]
				rs, ok2 := rf.Stats["update_alloc_rpcs"]
				if ok1 && ok2 && rs.Median > 0 {
					v := st.Median / rs.Median
					met := st.Median <= rs.Median
					rpc.Value, rpc.Met = &v, &met
				}
			}
			goals = append(goals, lat, rpc)
		}
	}
	return goals
}

// WriteGoals writes, per label, how many tables met each goal and which
// missed it.
func WriteGoals(w io.Writer, r *Report) {
	if len(r.Goals) == 0 {
		return
	}
	fmt.Fprintf(w, "Goals (medians, %d round(s); reported, not asserted):\n", r.Rounds)
	var labels []string
	seen := map[string]bool{}
	for _, g := range r.Goals {
		if !seen[g.Label] {
			seen[g.Label] = true
			labels = append(labels, g.Label)
		}
	}
	for _, l := range labels {
		for _, fig := range []struct{ key, what string }{
			{"latency", "latency ≤ 1.00 × " + r.BaseLabel()},
			{"rpcs", "Node.UpdateAlloc RPCs ≤ " + r.RefLabel() + "'s"},
		} {
			met, known := 0, 0
			var misses []string
			for _, g := range r.Goals {
				if g.Label != l || g.Figure != fig.key || g.Met == nil {
					continue
				}
				known++
				if *g.Met {
					met++
				} else {
					misses = append(misses, fmt.Sprintf("%s/%s %.2f", g.Workload, g.Topology, *g.Value))
				}
			}
			if known == 0 {
				fmt.Fprintf(w, "  %s %s: n/a (no %s in this run)\n", l, fig.what, map[string]string{"latency": r.BaseLabel(), "rpcs": r.RefLabel()}[fig.key])
				continue
			}
			line := fmt.Sprintf("  %s %s: met in %d of %d", l, fig.what, met, known)
			if len(misses) > 0 {
				line += "; MISSED: " + strings.Join(misses, ", ")
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintln(w)
}
