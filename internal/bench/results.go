package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Charts are the summary charts WriteResults draws: the latency and the
// RPCs of every label × base's, per workload and topology.
var Charts = []struct{ File, Key, Title string }{
	{"summary-latency.png", "seconds", "Latency figure"},
	{"summary-rpcs.png", "update_alloc_rpcs", "Node.UpdateAlloc RPCs"},
}

// WriteResults aggregates the report's runs and writes into dir the JSON
// file, the text report (also to w) and the charts. Everything it prints
// comes from the report, labels included, so a saved report redraws the
// same.
func WriteResults(rep *Report, dir string, w io.Writer) error {
	rep.upgrade()
	base := rep.BaseLabel()
	var order []string
	variants := map[string]bool{}
	for _, bin := range rep.Binaries {
		order = append(order, bin.Label)
		variants[bin.Label] = bin.Variant
	}
	rep.Tables = Aggregate(rep.Runs, rep.Topologies, rep.Workloads, order, variants, base)
	rep.Goals = Goals(rep)
	rep.Charts = nil
	for _, c := range Charts {
		file := filepath.Join(dir, c.File)
		if err := SummaryChart(rep, c.Key, c.Title, file); err != nil {
			return fmt.Errorf("drawing %s: %w", file, err)
		}
		rep.Charts = append(rep.Charts, file)
	}
	jsonFile := filepath.Join(dir, "bench.json")
	if err := rep.WriteJSON(jsonFile); err != nil {
		return err
	}
	var table bytes.Buffer
	WriteReport(&table, rep)
	tableFile := filepath.Join(dir, "table.txt")
	if err := os.WriteFile(tableFile, table.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(w)
	w.Write(table.Bytes())
	fmt.Fprintf(w, "wrote %s, %s, %s\n", jsonFile, tableFile, strings.Join(rep.Charts, ", "))
	return nil
}

// WriteReport writes the whole text report of an aggregated report: the
// header, a table per workload and topology, the summary, the goals, the
// load per round and the notes.
func WriteReport(w io.Writer, rep *Report) {
	var sizes []string
	for _, wl := range rep.Workloads {
		sizes = append(sizes, fmt.Sprintf("%s=%d", wl, rep.Sizes[wl]))
	}
	fmt.Fprintf(w, "nomadfork bench, %s, %s: %s; topologies %s; %d round(s), settle %s; %d run(s) in %s\n",
		rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, strings.Join(sizes, " "), strings.Join(rep.Topologies, ", "),
		rep.Rounds, rep.Settle, len(rep.Runs), time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(w, "command: %s\n", rep.Command)
	for _, b := range rep.Binaries {
		line := fmt.Sprintf("  %-10s %s", b.Label, b.Path)
		if b.Version != "" {
			line += "; " + b.Version
		}
		if b.Source == "external" {
			line += " (variant, built elsewhere)"
		} else if b.Source != "" {
			line += " (commit " + experiment.ShortCommit(b.Source) + ")"
		}
		fmt.Fprintln(w, line)
	}
	if wu := rep.Warmup; wu != nil {
		fmt.Fprintf(w, "warm-up run (not counted): %s, %s\n", wu.Label, warmupSummary(wu))
	}
	counters := rep.Counters
	if counters == "" {
		counters = CountersSummed
	}
	fmt.Fprintf(w, "medians (min–max) over the rounds, × %s's median in the same table; * = variant; server counters %s; floor: docs/bench.md\n\n", rep.BaseLabel(), counters)
	for i := range rep.Tables {
		WriteTable(w, rep, &rep.Tables[i])
	}
	WriteSummary(w, rep)
	WriteGoals(w, rep)
	WriteRounds(w, rep)
	WriteNotes(w, rep)
}

// warmupSummary describes the warm-up run: its workloads' figures, or its
// error.
func warmupSummary(run *RoundRun) string {
	if run.Error != "" {
		return "failed: " + run.Error
	}
	var parts []string
	for _, wl := range run.Workloads {
		parts = append(parts, fmt.Sprintf("%s %.1f s", wl.Name, wl.Seconds))
	}
	return strings.Join(parts, ", ")
}
