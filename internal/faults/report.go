package faults

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// WriteTable prints a table per scenario: a row per binary with the lost
// updates, duplicate runs, allocations checked, time to converge after the
// fault, the fault's length, RPCs and Raft applies; then every finding and
// error.
func WriteTable(w io.Writer, rep *Report) error {
	fmt.Fprintf(w, "faults: %s, %s, job count %d, 3 servers and 3 clients (multi topology)", rep.Date.Format("2006-01-02 15:04 UTC"), rep.Machine, rep.Count)
	for _, f := range rep.Faults {
		if fault, err := LookupFault(f); err == nil && fault.Upgrade {
			fmt.Fprintf(w, "; upgrade scenarios: %d allocations, 3 servers and 1 client", fault.Count)
			break
		}
	}
	fmt.Fprintln(w)
	for _, b := range rep.Binaries {
		fmt.Fprintf(w, "  %-8s %s\n", b.Label, b.Path)
	}
	for _, f := range rep.Faults {
		fmt.Fprintf(w, "\n%s", f)
		if fault, err := LookupFault(f); err == nil {
			fmt.Fprintf(w, ": %s", fault.Summary)
		}
		fmt.Fprintln(w)
		if fault, err := LookupFault(f); err == nil && fault.Upgrade {
			if err := writeUpgrade(w, rep, f); err != nil {
				return err
			}
			continue
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "binary\tlost updates\tduplicate runs\tre-run after failed restore\tchecked\tconverged after\tfault lasted\tUpdateAlloc RPCs\tRaft applies\tload\tresult\t")
		for _, r := range rep.ofFault(f) {
			result := "ok"
			switch {
			case r.Error != "":
				result = "ERROR"
			case !r.OK():
				result = "NOT OK"
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%.1fs\t%.0f\t%.0f\t%s\t%s\t\n", r.Label, len(r.Lost), len(r.Duplicates), len(r.Rerun), checkedCount(r),
				seconds(r.ConvergeSeconds), r.FaultSeconds, r.RPCs, r.RaftApplies, load(r.Load), result)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rep.ofFault(f) {
			writeFindings(w, r)
		}
	}
	fmt.Fprintf(w, "\n%d run(s) in %.0f min; %d not ok\n", len(rep.Results), rep.Seconds/60, rep.Failed())
	return nil
}

// ofFault returns the results of the runs of fault, in the report's order.
func (rep *Report) ofFault(fault string) []*Result {
	var out []*Result
	for i := range rep.Results {
		if rep.Results[i].Fault == fault {
			out = append(out, &rep.Results[i])
		}
	}
	return out
}

// checkedCount is how many allocations the run checked, with those it left
// unchecked beside it.
func checkedCount(r *Result) string {
	if r.Unchecked > 0 {
		return fmt.Sprintf("%d (+%d unchecked)", r.Checked, r.Unchecked)
	}
	return fmt.Sprintf("%d", r.Checked)
}

// writeUpgrade prints the upgrade scenario's table: a row per swap of
// each run, then each run's checker verdict, notes, problems and error.
func writeUpgrade(w io.Writer, rep *Report, fault string) error {
	f, _ := LookupFault(fault)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "swap\tallocations kept\ttask PIDs unchanged\trestore errors in log\t(of terminal allocations)\tnode ready after\tjob update\tdeployed in\tresult\t")
	for _, r := range rep.ofFault(fault) {
		for j := range r.Steps {
			s := &r.Steps[j]
			result := "ok"
			switch {
			case f.Control && j == 0 && r.OK():
				result = "killed task found"
			case f.Control && j == 0:
				result = "NOT OK (control)"
			case !s.OK():
				result = "NOT OK"
			}
			fmt.Fprintf(tw, "%s → %s\t%d/%d\t%d/%d\t%d\t%d\t%s\tv%d\t%s\t%s\t\n", s.From, s.To, s.Kept, s.Allocs, s.SamePIDs, s.Tasks,
				len(s.LogErrors), len(s.TerminalLogErrors), seconds(s.ReadySeconds), s.UpdateVersion, seconds(s.UpdateSeconds), result)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rep.ofFault(fault) {
		result := "ok"
		if !r.OK() {
			result = "NOT OK"
		}
		fmt.Fprintf(w, "  %s (servers %s, %d allocations): %d swap(s); then %d lost updates, %d duplicate runs, %s checked against the client's stored state: %s\n",
			r.Label, r.Upstream, r.Count, len(r.Steps), len(r.Lost), len(r.Duplicates), checkedCount(r), result)
		if r.Killed != "" {
			fmt.Fprintf(w, "  %s: killed the process of task %s while the client was stopped for the first swap\n", r.Label, shortKey(r.Killed))
		}
		for _, s := range r.Steps {
			for _, p := range s.Problems {
				fmt.Fprintf(w, "  %s: %s → %s: %s\n", r.Label, s.From, s.To, p)
			}
			for _, l := range s.LogErrors {
				fmt.Fprintf(w, "  %s: %s → %s: log: %s\n", r.Label, s.From, s.To, l)
			}
			if n := len(s.TerminalLogErrors); n > 0 {
				fmt.Fprintf(w, "  %s: %s → %s: %d log line(s) of allocations in terminal (not counted), e.g. %s\n", r.Label, s.From, s.To, n, s.TerminalLogErrors[0])
			}
		}
		writeFindings(w, r)
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func shortIDs(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = experiment.ShortID(id)
	}
	return out
}

func load(l float64) string {
	if l == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", l)
}

// writeFindings writes a run's notes, the updates it dropped on purpose,
// its lost updates, duplicate runs and error, a line each.
func writeFindings(w io.Writer, r *Result) {
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  %s: %s\n", r.Label, n)
	}
	if len(r.ExpectedLost) > 0 {
		fmt.Fprintf(w, "  %s: dropped on purpose: %s\n", r.Label, strings.Join(shortIDs(r.ExpectedLost), ", "))
	}
	for _, x := range r.Lost {
		fmt.Fprintf(w, "  %s: lost: %s\n", r.Label, x)
	}
	for _, x := range r.Duplicates {
		fmt.Fprintf(w, "  %s: duplicate: %s\n", r.Label, x)
	}
	if n := len(r.ClientOnly); n > 0 {
		fmt.Fprintf(w, "  %s: %d allocation(s) only their client holds, none running (restored away or collected; not counted)\n", r.Label, n)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  %s: error: %s\n", r.Label, firstLine(r.Error))
	}
}
