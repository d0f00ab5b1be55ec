package bench

import (
	"math"
	"sort"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench/cluster"
)

// Figure is one row of the report: how to read a number from a run.
type Figure struct {
	Key   string // JSON key
	Name  string // table label
	Unit  string // "s" or "" (a count)
	Float bool   // print with decimals
	// Get returns the run's value; ok is false when the run does not have
	// it (the fork's client metrics on upstream versions).
	Get func(r *Run) (v float64, ok bool)
}

func always(f func(r *Run) float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) { return f(r), true }
}

func phaseFigure(phase string, f func(p *Phase) float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) {
		p := r.Phase(phase)
		if p == nil {
			return 0, false
		}
		return f(p), true
	}
}

func clientFigure(f func(p *Phase) float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) {
		if !r.ClientMetrics() {
			return 0, false
		}
		return r.Total(f), true
	}
}

// bytesFigure sums a link counter over the run's phases, in MB; absent on
// the single topology.
func bytesFigure(f func(c *cluster.LinkCounters) uint64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) {
		var t float64
		for _, p := range r.Phases {
			if p.ClientBytes == nil {
				return 0, false
			}
			t += float64(f(p.ClientBytes))
		}
		return t / 1e6, len(r.Phases) > 0
	}
}

// Figures are the report's rows, in order. Totals are over the three
// phases (initial, rolling, settle).
var Figures = []Figure{
	{Key: "initial_seconds", Name: "initial deployment", Unit: "s", Float: true,
		Get: phaseFigure(PhaseInitial, func(p *Phase) float64 { return p.Seconds })},
	{Key: "rolling_seconds", Name: "rolling deployment", Unit: "s", Float: true,
		Get: phaseFigure(PhaseRolling, func(p *Phase) float64 { return p.Seconds })},
	{Key: "update_alloc_rpcs", Name: "Node.UpdateAlloc RPCs",
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return p.UpdateAllocRPCs }) })},
	{Key: "update_alloc_rpcs_initial", Name: "  in initial",
		Get: phaseFigure(PhaseInitial, func(p *Phase) float64 { return p.UpdateAllocRPCs })},
	{Key: "update_alloc_rpcs_rolling", Name: "  in rolling",
		Get: phaseFigure(PhaseRolling, func(p *Phase) float64 { return p.UpdateAllocRPCs })},
	{Key: "update_alloc_rpcs_settle", Name: "  in settle",
		Get: phaseFigure(PhaseSettle, func(p *Phase) float64 { return p.UpdateAllocRPCs })},
	{Key: "raft_applies", Name: "Raft applies",
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return p.RaftApplies }) })},
	{Key: "fsm_alloc_client_updates", Name: "FSM alloc client updates",
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return p.FSMAllocClientUpdates }) })},
	{Key: "client_status_transitions", Name: "ClientStatus transitions",
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return float64(p.Transitions) }) })},
	{Key: "client_sent_mb", Name: "client→server bytes", Unit: "MB", Float: true,
		Get: bytesFigure(func(c *cluster.LinkCounters) uint64 { return c.Sent })},
	{Key: "client_received_mb", Name: "server→client bytes", Unit: "MB", Float: true,
		Get: bytesFigure(func(c *cluster.LinkCounters) uint64 { return c.Received })},
	{Key: "server_cpu_seconds", Name: "server CPU (all)", Unit: "s", Float: true,
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return p.ServerCPU }) })},
	{Key: "leader_cpu_seconds", Name: "leader CPU", Unit: "s", Float: true,
		Get: func(r *Run) (float64, bool) {
			var t float64
			for _, p := range r.Phases {
				if p.LeaderCPU == nil {
					return 0, false
				}
				t += *p.LeaderCPU
			}
			return t, len(r.Phases) > 0
		}},
	{Key: "client_cpu_seconds", Name: "client CPU (all)", Unit: "s", Float: true,
		Get: always(func(r *Run) float64 { return r.Total(func(p *Phase) float64 { return p.ClientCPU }) })},
	{Key: "client_rpcs_urgent", Name: "client RPCs: urgent",
		Get: clientFigure(func(p *Phase) float64 { return p.ClientRPCs["urgent"] })},
	{Key: "client_rpcs_tick", Name: "client RPCs: tick",
		Get: clientFigure(func(p *Phase) float64 { return p.ClientRPCs["tick"] })},
	{Key: "client_rpcs_retry", Name: "client RPCs: retry",
		Get: clientFigure(func(p *Phase) float64 { return p.ClientRPCs["retry"] })},
	{Key: "client_updates_urgent", Name: "updates sent: urgent",
		Get: clientFigure(func(p *Phase) float64 { return p.ClientSent["urgent"] })},
	{Key: "client_updates_typical", Name: "updates sent: typical",
		Get: clientFigure(func(p *Phase) float64 { return p.ClientSent["typical"] })},
	{Key: "client_updates_buffered", Name: "updates buffered at end",
		Get: func(r *Run) (float64, bool) {
			p := r.Phase(PhaseSettle)
			if p == nil || p.ClientBuffered == nil {
				return 0, false
			}
			return *p.ClientBuffered, true
		}},
}

// FigureByKey returns the figure with the key.
func FigureByKey(key string) (Figure, bool) {
	for _, f := range Figures {
		if f.Key == key {
			return f, true
		}
	}
	return Figure{}, false
}

// Stat is a figure's summary over the runs of one label.
type Stat struct {
	N      int       `json:"n"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Values []float64 `json:"values"`
	// Ratio is the median over the base label's median; nil when either
	// is missing or the base's is zero.
	Ratio *float64 `json:"ratio_to_base,omitempty"`
}

// Summary is the aggregate of one label's successful runs.
type Summary struct {
	Label   string          `json:"label"`
	Variant bool            `json:"variant,omitempty"`
	Runs    int             `json:"runs"`
	Failed  int             `json:"failed"`
	Stats   map[string]Stat `json:"figures"`
}

// Median returns the median of vs (the mean of the middle two for an even
// count); NaN for none.
func Median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Aggregate summarizes the runs per label, in the order of labels. Failed
// runs are counted but not aggregated. Ratios are to base's medians.
func Aggregate(runs []Run, labels []string, variants map[string]bool, base string) []Summary {
	var out []Summary
	for _, label := range labels {
		s := Summary{Label: label, Variant: variants[label], Stats: map[string]Stat{}}
		var ok []*Run
		for i := range runs {
			if runs[i].Label != label {
				continue
			}
			if runs[i].Error != "" {
				s.Failed++
				continue
			}
			ok = append(ok, &runs[i])
		}
		s.Runs = len(ok)
		for _, f := range Figures {
			var vs []float64
			for _, r := range ok {
				if v, has := f.Get(r); has {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				continue
			}
			st := Stat{N: len(vs), Median: Median(vs), Min: vs[0], Max: vs[0], Values: vs}
			for _, v := range vs {
				st.Min = math.Min(st.Min, v)
				st.Max = math.Max(st.Max, v)
			}
			s.Stats[f.Key] = st
		}
		out = append(out, s)
	}
	var baseStats map[string]Stat
	for _, s := range out {
		if s.Label == base {
			baseStats = s.Stats
		}
	}
	for i := range out {
		for k, st := range out[i].Stats {
			b, ok := baseStats[k]
			if !ok || b.Median == 0 {
				continue
			}
			r := st.Median / b.Median
			st.Ratio = &r
			out[i].Stats[k] = st
		}
	}
	return out
}
