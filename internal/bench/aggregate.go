package bench

import (
	"math"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Figure is one column of a workload table: how to read a number from a
// workload's result.
type Figure struct {
	Key  string // JSON key
	Name string // table label
	Unit string // "s" or "" (a count)
	Get  func(w *WorkloadRun) float64
}

// Figures are the figures every workload reports, in table order: its
// latency figure, Node.UpdateAlloc RPCs and Raft applies (summed over the
// servers: see experiment.Counters), and the servers' CPU seconds (summed).
var Figures = []Figure{
	{Key: "seconds", Name: "latency", Unit: "s", Get: func(w *WorkloadRun) float64 { return w.Seconds }},
	{Key: "update_alloc_rpcs", Name: "UpdateAlloc RPCs",
		Get: func(w *WorkloadRun) float64 {
			return w.Total(func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs })
		}},
	{Key: "raft_applies", Name: "Raft applies",
		Get: func(w *WorkloadRun) float64 {
			return w.Total(func(p *experiment.Phase) float64 { return p.RaftApplies })
		}},
	{Key: "server_cpu_seconds", Name: "server CPU", Unit: "s",
		Get: func(w *WorkloadRun) float64 { return w.Total(func(p *experiment.Phase) float64 { return p.ServerCPU }) }},
}

// FloorKey is the stat key of the floor.
const FloorKey = "floor_rpcs"

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

// NewStat summarizes values; ok is false for none.
func NewStat(vs []float64) (Stat, bool) {
	if len(vs) == 0 {
		return Stat{}, false
	}
	st := Stat{N: len(vs), Median: Median(vs), Min: vs[0], Max: vs[0], Values: vs}
	for _, v := range vs {
		st.Min = math.Min(st.Min, v)
		st.Max = math.Max(st.Max, v)
	}
	return st, true
}

// Summary is the aggregate of one label's successful runs of a workload
// on a topology.
type Summary struct {
	Label   string          `json:"label"`
	Variant bool            `json:"variant,omitempty"`
	Runs    int             `json:"runs"`
	Failed  int             `json:"failed"`
	Stats   map[string]Stat `json:"figures"`
}

// Table is one workload on one topology: a summary per label and the
// floor over every successful run.
type Table struct {
	Workload string    `json:"workload"`
	Topology string    `json:"topology"`
	Latency  string    `json:"latency"`
	N        int       `json:"n"`
	Labels   []Summary `json:"labels"`
	Floor    *Stat     `json:"floor_rpcs,omitempty"`
}

// Label returns the label's summary, or nil.
func (t *Table) Label(label string) *Summary {
	for i := range t.Labels {
		if t.Labels[i].Label == label {
			return &t.Labels[i]
		}
	}
	return nil
}

// Median returns the median of vs (experiment.Median).
func Median(vs []float64) float64 { return experiment.Median(vs) }

// Aggregate makes a table per topology and workload, in the given orders,
// with a summary per label in the order of labels. A failed run, or a
// failed workload of a run, is counted but not aggregated. Ratios are to
// base's medians in the same table.
func Aggregate(runs []RoundRun, topologies, workloads, labels []string, variants map[string]bool, base string) []Table {
	var out []Table
	for _, topo := range topologies {
		for _, wl := range workloads {
			t := Table{Workload: wl, Topology: topo}
			var floors []float64
			for _, label := range labels {
				s := Summary{Label: label, Variant: variants[label], Stats: map[string]Stat{}}
				var ok []*WorkloadRun
				for i := range runs {
					r := &runs[i]
					if r.Label != label || r.Topology != topo {
						continue
					}
					w := r.Workload(wl)
					if w == nil {
						if r.Error != "" {
							s.Failed++
						}
						continue
					}
					if w.Error != "" {
						s.Failed++
						continue
					}
					t.Latency, t.N = w.Latency, w.N
					ok = append(ok, w)
				}
				s.Runs = len(ok)
				extra := map[string][]float64{}
				for _, f := range Figures {
					var vs []float64
					for _, w := range ok {
						vs = append(vs, f.Get(w))
					}
					if st, has := NewStat(vs); has {
						s.Stats[f.Key] = st
					}
				}
				for _, w := range ok {
					if w.Floor != nil {
						extra[FloorKey] = append(extra[FloorKey], *w.Floor)
						floors = append(floors, *w.Floor)
					}
					for k, v := range w.Figures {
						extra[k] = append(extra[k], v)
					}
				}
				for k, vs := range extra {
					if st, has := NewStat(vs); has {
						s.Stats[k] = st
					}
				}
				t.Labels = append(t.Labels, s)
			}
			if st, ok := NewStat(floors); ok {
				t.Floor = &st
			}
			setRatios(&t, base)
			out = append(out, t)
		}
	}
	return out
}

// setRatios sets every stat's ratio to base's median.
func setRatios(t *Table, base string) {
	b := t.Label(base)
	if b == nil {
		return
	}
	for i := range t.Labels {
		for k, st := range t.Labels[i].Stats {
			bs, ok := b.Stats[k]
			if !ok || bs.Median == 0 {
				continue
			}
			r := st.Median / bs.Median
			st.Ratio = &r
			t.Labels[i].Stats[k] = st
		}
	}
}
