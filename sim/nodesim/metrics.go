package nodesim

import (
	"math"
	"slices"
	"sort"
	"sync"

	metrics "github.com/armon/go-metrics"

	"github.com/nomad-client-fork/nomad-client-fork/simstate"
)

// Histogram is a histogram of durations, as State serves it.
type Histogram = simstate.Histogram

// UpdateAllocRTTKey is the key of the clients' Node.UpdateAlloc round trip
// timer (the series' metrics patch, 0007) as the global metrics sink sees
// it: the service name first.
var UpdateAllocRTTKey = []string{"nomad", "client", "allocations", "updates", "rpc_time"}

// RTTBoundsMs are the round trip histogram's bucket bounds: from 1 ms, each
// 10 % above the one before, up to the first at or above 60 s.
var RTTBoundsMs = logBounds(1, 60_000, 1.1)

// logBounds returns the bounds from lo, each factor times the one before
// (rounded to the microsecond), up to the first at or above hi.
func logBounds(lo, hi, factor float64) []float64 {
	var out []float64
	for b := lo; ; b *= factor {
		out = append(out, math.Round(b*1000)/1000)
		if b >= hi {
			return out
		}
	}
}

// timerSink is a go-metrics sink that counts the samples of one timer, of
// every node whatever its labels, in a histogram. It drops every other
// metric: the simulator reports no other.
type timerSink struct {
	key    []string
	bounds []float64

	mu sync.Mutex
	// counts are per bucket, not cumulative; the last one counts the
	// samples above every bound.
	counts []uint64
}

var _ metrics.MetricSink = (*timerSink)(nil)

func newTimerSink(key []string, bounds []float64) *timerSink {
	return &timerSink{key: key, bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (s *timerSink) AddSampleWithLabels(key []string, val float32, _ []metrics.Label) {
	if !slices.Equal(key, s.key) {
		return
	}
	i := sort.SearchFloat64s(s.bounds, float64(val))
	s.mu.Lock()
	s.counts[i]++
	s.mu.Unlock()
}

func (s *timerSink) AddSample(key []string, val float32) { s.AddSampleWithLabels(key, val, nil) }

func (*timerSink) SetGauge([]string, float32)                               {}
func (*timerSink) SetGaugeWithLabels([]string, float32, []metrics.Label)    {}
func (*timerSink) EmitKey([]string, float32)                                {}
func (*timerSink) IncrCounter([]string, float32)                            {}
func (*timerSink) IncrCounterWithLabels([]string, float32, []metrics.Label) {}

// histogram returns the samples counted so far.
func (s *timerSink) histogram() *Histogram {
	h := &Histogram{BoundsMs: slices.Clone(s.bounds), Counts: make([]uint64, len(s.bounds))}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, n := range s.counts {
		h.Count += n
		if i < len(h.Counts) {
			h.Counts[i] = h.Count
		}
	}
	return h
}

// installTimerSink makes sink the global metrics sink, which the clients
// of the process emit their metrics to, as a Nomad agent configures it
// (service name "nomad", no hostname), without runtime metrics.
func installTimerSink(sink *timerSink) error {
	conf := metrics.DefaultConfig("nomad")
	conf.EnableHostname = false
	conf.EnableRuntimeMetrics = false
	_, err := metrics.NewGlobal(conf, sink)
	return err
}
