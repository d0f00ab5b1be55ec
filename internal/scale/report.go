package scale

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// row is a line of the table: a name and how to print a result's figure;
// num is the figure as a number for the ratio column (ok false: none).
type row struct {
	name   string
	text   func(r *Result) string
	num    func(r *Result) (float64, bool)
	format string // num's, for a median over rounds
	// key names the figure in charts ("" for none).
	key string
	// phase is the phase a per-phase row reads: the row is left out when
	// no run has it (a workload not run).
	phase string
}

// ran reports whether some result has the row's phase (always for a row
// of no single phase).
func (rw row) ran(results []Result) bool {
	if rw.phase == "" {
		return true
	}
	for i := range results {
		if results[i].Phase(rw.phase) != nil {
			return true
		}
	}
	return false
}

func phaseSum(r *Result, f func(p *experiment.Phase) float64) float64 {
	var t float64
	for i := range r.Phases {
		t += f(&r.Phases[i])
	}
	return t
}

func numRow(name, format string, f func(r *Result) (float64, bool)) row {
	return row{name: name, num: f, format: format, text: func(r *Result) string {
		v, ok := f(r)
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf(format, v)
	}}
}

func phaseRow(name, format, phase string, f func(p *experiment.Phase) float64) row {
	rw := numRow(name, format, func(r *Result) (float64, bool) {
		p := r.Phase(phase)
		if p == nil {
			return 0, false
		}
		return f(p), true
	})
	rw.phase = phase
	return rw
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

// keyed sets a row's chart key.
func keyed(key string, rw row) row {
	rw.key = key
	return rw
}

var rows = []row{
	keyed("initial_seconds", phaseRow("initial deployment", "%.1f s", experiment.PhaseInitial, func(p *experiment.Phase) float64 { return p.Seconds })),
	keyed("rolling_seconds", phaseRow("rolling deployment", "%.1f s", experiment.PhaseRolling, func(p *experiment.Phase) float64 { return p.Seconds })),
	keyed("makespan_seconds", phaseRow("batch queue makespan", "%.1f s", PhaseBatch, func(p *experiment.Phase) float64 { return p.Seconds })),
	keyed("drain_seconds", phaseRow("drain time (¼ of the nodes)", "%.1f s", PhaseDrain, func(p *experiment.Phase) float64 { return p.Seconds })),
	keyed("update_alloc_rpcs", totalRow("`Node.UpdateAlloc` RPCs (servers)", "%.0f", func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs })),
	phaseRow("  in initial", "%.0f", experiment.PhaseInitial, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in rolling", "%.0f", experiment.PhaseRolling, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in batch", "%.0f", PhaseBatch, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in drain", "%.0f", PhaseDrain, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	phaseRow("  in settle", "%.0f", experiment.PhaseSettle, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }),
	keyed("update_alloc_server_ms", numRow("server time per `Node.UpdateAlloc` (mean)", "%.1f ms", func(r *Result) (float64, bool) {
		n := phaseSum(r, func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs })
		return phaseSum(r, func(p *experiment.Phase) float64 { return p.UpdateAllocMillis }) / n, n > 0
	})),
	keyed("update_alloc_rtt_p50_ms", numRow("client `Node.UpdateAlloc` round trip p50", "%.1f ms", func(r *Result) (float64, bool) {
		if r.UpdateAllocRTT == nil {
			return 0, false
		}
		return r.UpdateAllocRTT.P50Ms, true
	})),
	keyed("update_alloc_rtt_p99_ms", numRow("client `Node.UpdateAlloc` round trip p99", "%.1f ms", func(r *Result) (float64, bool) {
		if r.UpdateAllocRTT == nil {
			return 0, false
		}
		return r.UpdateAllocRTT.P99Ms, true
	})),
	keyed("raft_applies", totalRow("Raft applies (servers)", "%.0f", func(p *experiment.Phase) float64 { return p.RaftApplies })),
	keyed("raft_mb", numRow("Raft log bytes", "%.2f MB", func(r *Result) (float64, bool) {
		var t float64
		for _, p := range r.Phases {
			if p.RaftBytes == nil {
				return 0, false
			}
			t += *p.RaftBytes
		}
		return t / 1e6, len(r.Phases) > 0
	})),
	keyed("fsm_alloc_client_updates", totalRow("FSM alloc client updates", "%.0f", func(p *experiment.Phase) float64 { return p.FSMAllocClientUpdates })),
	keyed("leader_cpu_seconds", numRow("leader CPU", "%.1f s", func(r *Result) (float64, bool) {
		var t float64
		for _, p := range r.Phases {
			if p.LeaderCPU == nil {
				return 0, false
			}
			t += *p.LeaderCPU
		}
		return t, len(r.Phases) > 0
	})),
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

// WriteTable writes the report as Markdown: per fleet size a table with a
// column per build (the median over the rounds; each round's text when the
// figure is not a number) and the ratio of each build's figure to the
// base's (every-tick when it ran, else the first build), then the knee.
func WriteTable(w io.Writer, rep *Report) error {
	s := rep.Scenario
	var b strings.Builder
	if len(rep.Sizes) > 1 || rep.Rounds > 1 {
		fmt.Fprintf(&b, "%s, %s; fleets of %s simulated nodes %s, %d allocations per node in %d jobs, %d round(s); workloads %s; servers: %s\n",
			rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, FormatSizes(reportSizes(rep)), s.Placement.Where(), s.AllocsPerNode, s.Jobs, max(1, rep.Rounds), s.Workloads, serversName(rep))
	} else {
		fmt.Fprintf(&b, "%s, %s; %d simulated nodes %s, %d allocations in %d jobs (initial + rolling), max_parallel %d, min_healthy_time %s; servers: %s\n",
			rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, s.Nodes, s.Placement.Where(), s.Allocs(), s.Jobs, s.MaxParallel, s.MinHealthy, serversName(rep))
	}
	if len(rep.Results) == 0 {
		b.WriteString("\nno runs\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	labels := reportLabels(rep)
	base := baseLabel(labels)
	for _, n := range reportSizes(rep) {
		if len(rep.Sizes) > 1 || rep.Rounds > 1 {
			sc := s.Sized(n, false)
			fmt.Fprintf(&b, "\n%d nodes: %d allocations, max_parallel %d\n", n, sc.Allocs(), resultMaxParallel(rep, n, sc))
		}
		b.WriteString("\n")
		writeSizeTable(&b, rep, n, labels, base)
	}
	for _, r := range rep.Results {
		id := r.Label
		if len(rep.Sizes) > 1 || rep.Rounds > 1 {
			id = fmt.Sprintf("%s N=%d r%d", r.Label, r.Nodes, r.Round)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, "\n%s: error: %s\n", id, r.Error)
		}
		for _, l := range r.Check.Lost {
			fmt.Fprintf(&b, "%s: lost: %s\n", id, l)
		}
		for _, u := range r.Check.Unconverged {
			fmt.Fprintf(&b, "%s: not converged: %s\n", id, u)
		}
		for _, p := range r.Phases {
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "%s, %s: %s\n", id, p.Name, n)
			}
		}
	}
	if len(reportSizes(rep)) > 1 {
		b.WriteString("\n")
		for _, k := range Knee(rep) {
			fmt.Fprintf(&b, "knee: %s\n", k)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// resultMaxParallel is the max_parallel of the runs at size n: the
// report's scenario's when it has one size, else a quarter of a job's count.
func resultMaxParallel(rep *Report, n int, sc Scenario) int {
	if len(rep.Sizes) <= 1 {
		return rep.Scenario.MaxParallel
	}
	return sc.MaxParallel
}

// writeSizeTable writes the table of the runs at size n.
func writeSizeTable(b *strings.Builder, rep *Report, n int, labels []string, base string) {
	head := []string{"figure"}
	head = append(head, labels...)
	for _, l := range labels {
		if l != base {
			head = append(head, fmt.Sprintf("%s ÷ %s", l, base))
		}
	}
	lines := [][]string{head}
	for _, rw := range rows {
		if !rw.ran(rep.Results) {
			continue
		}
		line := []string{rw.name}
		for _, l := range labels {
			line = append(line, cellText(rw, runsOf(rep, l, n)))
		}
		for _, l := range labels {
			if l != base {
				line = append(line, ratio(rw, runsOf(rep, l, n), runsOf(rep, base, n)))
			}
		}
		lines = append(lines, line)
	}
	for i, l := range lines {
		b.WriteString("| " + strings.Join(l, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat("---|", len(l)) + "\n")
		}
	}
}

// runsOf returns the results of label at size n, in round order.
func runsOf(rep *Report, label string, n int) []*Result {
	var out []*Result
	for i := range rep.Results {
		if r := &rep.Results[i]; r.Label == label && r.Nodes == n {
			out = append(out, r)
		}
	}
	return out
}

// median returns the median of a row's figure over runs; ok is false when
// no run has it.
func median(rw row, runs []*Result) (float64, bool) {
	var vs []float64
	for _, r := range runs {
		if v, ok := rw.num(r); ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	return experiment.Median(vs), true
}

// cellText is a row's cell over runs: one run's text, or the median of the
// figure over several, or each run's text joined.
func cellText(rw row, runs []*Result) string {
	switch {
	case len(runs) == 0:
		return ""
	case len(runs) == 1:
		return rw.text(runs[0])
	case rw.num != nil:
		v, ok := median(rw, runs)
		if !ok {
			return "n/a"
		}
		return fmt.Sprintf(rw.format, v)
	}
	var t []string
	for _, r := range runs {
		t = append(t, rw.text(r))
	}
	return strings.Join(t, " / ")
}

// ratio is the ratio of a row's medians over runs a and b.
func ratio(rw row, a, b []*Result) string {
	if rw.num == nil || len(a) == 0 || len(b) == 0 {
		return ""
	}
	va, oka := median(rw, a)
	vb, okb := median(rw, b)
	if !oka || !okb || vb == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", va/vb)
}

// reportLabels are the builds' labels in the report's order.
func reportLabels(rep *Report) []string {
	var out []string
	for _, b := range rep.Builds {
		out = append(out, b.Label)
	}
	for _, r := range rep.Results {
		if !slices.Contains(out, r.Label) {
			out = append(out, r.Label)
		}
	}
	return out
}

// BaseLabel is the build the ratios divide by when it ran: v1.5.3's
// behaviour.
const BaseLabel = "every-tick"

// baseLabel is the label the ratios divide by: every-tick when it ran,
// else the first.
func baseLabel(labels []string) string {
	if slices.Contains(labels, BaseLabel) || len(labels) == 0 {
		return BaseLabel
	}
	return labels[0]
}

// reportSizes are the fleet sizes the results ran at, ascending.
func reportSizes(rep *Report) []int {
	var out []int
	for _, r := range rep.Results {
		out = append(out, r.Nodes)
	}
	if len(out) == 0 {
		out = append(out, rep.Scenario.Nodes)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// deploySeconds is a run's initial and rolling deployments' time.
func deploySeconds(r *Result) (float64, bool) {
	a, b := r.Phase(experiment.PhaseInitial), r.Phase(experiment.PhaseRolling)
	if a == nil || b == nil {
		return 0, false
	}
	return a.Seconds + b.Seconds, true
}

// superlinear is the growth of the deploy time per node from one size to
// the next above which Knee calls it faster than linear.
const superlinear = 1.25

// Knee says, per build, the first fleet size whose run is not ok and where
// the deploy time (initial + rolling, median over the rounds) first grows
// faster than the fleet: more than superlinear times its growth.
func Knee(rep *Report) []string {
	var out []string
	sizes := reportSizes(rep)
	deploy := row{num: deploySeconds}
	for _, l := range reportLabels(rep) {
		var parts []string
		for _, n := range sizes {
			runs := runsOf(rep, l, n)
			if slices.ContainsFunc(runs, func(r *Result) bool { return !r.OK() }) {
				parts = append(parts, fmt.Sprintf("first not ok at %d nodes", n))
				break
			}
		}
		for i := 1; i < len(sizes); i++ {
			a, oka := median(deploy, runsOf(rep, l, sizes[i-1]))
			b, okb := median(deploy, runsOf(rep, l, sizes[i]))
			if !oka || !okb || a == 0 {
				continue
			}
			growth := (b / a) / (float64(sizes[i]) / float64(sizes[i-1]))
			if growth > superlinear {
				parts = append(parts, fmt.Sprintf("deploy time grows faster than linearly from %d to %d nodes (%.1f s → %.1f s, ×%.2f per node)",
					sizes[i-1], sizes[i], a, b, growth))
				break
			}
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("every size ok, deploy time at most linear up to %d nodes", sizes[len(sizes)-1]))
		}
		out = append(out, l+": "+strings.Join(parts, "; "))
	}
	return out
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
