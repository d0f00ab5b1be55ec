package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteResults aggregates the report's runs and writes into dir the JSON
// file, the table (also to w) and the charts. Everything it prints comes
// from the report, labels included, so a saved report redraws the same.
func WriteResults(rep *Report, dir string, w io.Writer) error {
	base := rep.BaseLabel()
	var order []string
	variants := map[string]bool{}
	for _, bin := range rep.Binaries {
		order = append(order, bin.Label)
		variants[bin.Label] = bin.Variant
	}
	rep.Summaries = Aggregate(rep.Runs, order, variants, base)
	rep.Goals = Goals(rep)
	headline := filepath.Join(dir, "headline.png")
	tradeoff := filepath.Join(dir, "tradeoff.png")
	if err := HeadlineChart(rep, base, headline); err != nil {
		return fmt.Errorf("drawing %s: %w", headline, err)
	}
	if err := TradeoffChart(rep, tradeoff); err != nil {
		return fmt.Errorf("drawing %s: %w", tradeoff, err)
	}
	rep.Charts = []string{headline, tradeoff}
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
	fmt.Fprintf(w, "wrote %s, %s, %s and %s\n", jsonFile, tableFile, headline, tradeoff)
	return nil
}

// WriteReport writes the whole text report of an aggregated report: the
// header, a table per label, the load per round, the goals and the notes.
func WriteReport(w io.Writer, rep *Report) {
	shape := ""
	if rep.Topology != "" {
		shape = fmt.Sprintf(", %s topology (%d server(s), %d clients)", rep.Topology, rep.Servers, rep.Clients)
	}
	fmt.Fprintf(w, "nomadfork bench, %s, %s: N=%d, %d round(s), settle %s%s; %d run(s) in %s\n",
		rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, rep.Count, rep.Rounds, rep.Settle, shape, len(rep.Runs), time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(w, "command: %s\n", rep.Command)
	if wu := rep.Warmup; wu != nil {
		fmt.Fprintf(w, "warm-up run (not counted): %s, %s\n", wu.Label, warmupSummary(wu))
	}
	fmt.Fprintf(w, "ratios to %s's medians, goals against %s\n\n", rep.BaseLabel(), rep.RefLabel())
	WriteTable(w, rep, rep.BaseLabel())
	WriteRounds(w, rep)
	WriteGoals(w, rep)
	WriteNotes(w, rep)
}

// warmupSummary describes the warm-up run: its deployment times, or its
// error.
func warmupSummary(run *Run) string {
	if run.Error != "" {
		return "failed: " + run.Error
	}
	var parts []string
	for _, name := range []string{PhaseInitial, PhaseRolling} {
		if ph := run.Phase(name); ph != nil {
			parts = append(parts, fmt.Sprintf("%s deployment %.1f s", name, ph.Seconds))
		}
	}
	return strings.Join(parts, ", ")
}
