package scale

import (
	"fmt"
	"io"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// row is a line of the table: a name and how to print a result's figure;
// num is the figure as a number for the ratio column (ok false: none).
type row struct {
	name string
	text func(r *Result) string
	num  func(r *Result) (float64, bool)
}

func phaseSum(r *Result, f func(p *experiment.Phase) float64) float64 {
	var t float64
	for i := range r.Phases {
		t += f(&r.Phases[i])
	}
	return t
}

func numRow(name, format string, f func(r *Result) (float64, bool)) row {
	return row{name: name, num: f, text: func(r *Result) string {
		v, ok := f(r)
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf(format, v)
	}}
}

func phaseRow(name, format, phase string, f func(p *experiment.Phase) float64) row {
	return numRow(name, format, func(r *Result) (float64, bool) {
		p := r.Phase(phase)
		if p == nil {
			return 0, false
		}
		return f(p), true
	})
}

func totalRow(name, format string, f func(p *experiment.Phase) float64) row {
	return numRow(name, format, func(r *Result) (float64, bool) {
		return phaseSum(r, f), len(r.Phases) > 0
	})
}

func bytesRow(name string, f func(r *Result) uint64) row {
	return numRow(name, "%.0f MiB", func(r *Result) (float64, bool) {
		v := f(r)
		return float64(v) / (1 << 20), v > 0
	})
}

var rows = []row{
	phaseRow("initial deployment", "%.1f s", experiment.PhaseInitial, func(p *experiment.Phase) float64 { return p.Seconds }),
	phaseRow("rolling deployment", "%.1f s", experiment.PhaseRolling, func(p *experiment.Phase) float64 { return p.Seconds }),
	totalRow("`Node.UpdateAlloc` RPCs (servers)", "%.0f", func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in initial", "%.0f", experiment.PhaseInitial, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in rolling", "%.0f", experiment.PhaseRolling, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in settle", "%.0f", experiment.PhaseSettle, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	totalRow("Raft applies (servers)", "%.0f", func(p *experiment.Phase) float64 { return p.RaftApplies }),
	totalRow("FSM alloc client updates", "%.0f", func(p *experiment.Phase) float64 { return p.FSMAllocClientUpdates }),
	numRow("leader CPU", "%.1f s", func(r *Result) (float64, bool) {
		var t float64
		for _, p := range r.Phases {
			if p.LeaderCPU == nil {
				return 0, false
			}
			t += *p.LeaderCPU
		}
		return t, len(r.Phases) > 0
	}),
	totalRow("server CPU (3 servers)", "%.1f s", func(p *experiment.Phase) float64 { return p.ServerCPU }),
	totalRow("simulator CPU", "%.1f s", func(p *experiment.Phase) float64 { return p.ClientCPU }),
	numRow("simulator→server bytes", "%.1f MB", func(r *Result) (float64, bool) {
		var t float64
		for _, p := range r.Phases {
			if p.ClientBytes == nil {
				return 0, false
			}
			t += float64(p.ClientBytes.Sent)
		}
		return t / 1e6, len(r.Phases) > 0
	}),
	numRow("nodes ready after", "%.1f s", func(r *Result) (float64, bool) { return r.NodesSeconds, r.NodesSeconds > 0 }),
	bytesRow("simulator RSS, nodes idle", func(r *Result) uint64 { return r.RSSIdle }),
	bytesRow("simulator RSS, steady state", func(r *Result) uint64 { return r.RSS }),
	bytesRow("simulator RSS, peak", func(r *Result) uint64 { return r.RSSPeak }),
	numRow("**memory per node** (steady RSS / N)", "%.1f MiB", func(r *Result) (float64, bool) {
		return float64(r.RSS) / (1 << 20) / float64(r.Nodes), r.RSS > 0 && r.Nodes > 0
	}),
	bytesRow("simulator Go heap in use", func(r *Result) uint64 { return r.HeapInuse }),
	{name: "allocations checked", text: func(r *Result) string { return fmt.Sprint(r.Check.Checked) }},
	{name: "lost updates", text: func(r *Result) string { return fmt.Sprint(len(r.Check.Lost)) }},
	{name: "jobs not converged", text: func(r *Result) string { return fmt.Sprint(len(r.Check.Unconverged)) }},
	{name: "result", text: func(r *Result) string {
		if r.OK() {
			return "ok"
		}
		return "NOT OK"
	}},
}

// WriteTable writes the report as a Markdown table: a column per build and,
// for two or more, the ratio of each other build's figure to the first's.
func WriteTable(w io.Writer, rep *Report) error {
	s := rep.Scenario
	fmt.Fprintf(w, "%s, %s; %d simulated nodes %s, %d allocations in %d jobs (initial + rolling), max_parallel %d, min_healthy_time %s; servers: %s\n\n",
		rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, s.Nodes, s.Placement.Where(), s.Allocs(), s.Jobs, s.MaxParallel, s.MinHealthy, serversName(rep))
	if len(rep.Results) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	head := []string{"figure"}
	for _, r := range rep.Results {
		head = append(head, r.Label)
	}
	first := &rep.Results[0]
	for _, r := range rep.Results[1:] {
		head = append(head, fmt.Sprintf("%s ÷ %s", first.Label, r.Label))
	}
	lines := [][]string{head}
	for _, rw := range rows {
		line := []string{rw.name}
		for i := range rep.Results {
			line = append(line, rw.text(&rep.Results[i]))
		}
		for i := 1; i < len(rep.Results); i++ {
			line = append(line, ratio(rw, first, &rep.Results[i]))
		}
		lines = append(lines, line)
	}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString("| " + strings.Join(l, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat("---|", len(l)) + "\n")
		}
	}
	for _, r := range rep.Results {
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s: error: %s\n", r.Label, r.Error)
		}
		for _, l := range r.Check.Lost {
			fmt.Fprintf(&b, "%s: lost: %s\n", r.Label, l)
		}
		for _, u := range r.Check.Unconverged {
			fmt.Fprintf(&b, "%s: not converged: %s\n", r.Label, u)
		}
		for _, p := range r.Phases {
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "%s, %s: %s\n", r.Label, p.Name, n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ratio(rw row, a, b *Result) string {
	if rw.num == nil {
		return ""
	}
	va, oka := rw.num(a)
	vb, okb := rw.num(b)
	if !oka || !okb || vb == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", va/vb)
}

func serversName(rep *Report) string {
	if rep.Servers.Version != "" {
		return rep.Servers.Version
	}
	for _, r := range rep.Results {
		if r.Version != "" {
			return r.Version
		}
	}
	return rep.Servers.Label
}
