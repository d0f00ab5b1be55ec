package nodesim

import (
	"testing"
	"time"

	metrics "github.com/armon/go-metrics"
	"github.com/shoenig/test/must"
)

func TestTimerSink(t *testing.T) {
	key := []string{"nomad", "client", "allocations", "updates", "rpc_time"}
	labels := []metrics.Label{{Name: "node_id", Value: "a"}}
	other := []metrics.Label{{Name: "node_id", Value: "b"}, {Name: "node_class", Value: "none"}}
	for _, tc := range []struct {
		name   string
		emit   func(s *timerSink)
		counts []uint64
		count  uint64
	}{
		{"nothing", func(s *timerSink) {}, []uint64{0, 0, 0}, 0},
		{"below the first bound", func(s *timerSink) { s.AddSampleWithLabels(key, 0.2, labels) }, []uint64{1, 1, 1}, 1},
		{"on a bound", func(s *timerSink) { s.AddSampleWithLabels(key, 2, labels) }, []uint64{0, 1, 1}, 1},
		{"above the last bound", func(s *timerSink) { s.AddSampleWithLabels(key, 5, labels) }, []uint64{0, 0, 0}, 1},
		{"every node's labels", func(s *timerSink) {
			s.AddSampleWithLabels(key, 1.5, labels)
			s.AddSampleWithLabels(key, 3, other)
			s.AddSample(key, 3.5)
		}, []uint64{0, 1, 3}, 3},
		{"other metrics dropped", func(s *timerSink) {
			s.AddSampleWithLabels([]string{"nomad", "client", "update_alloc"}, 1, labels)
			s.AddSampleWithLabels(key[1:], 1, labels)
			s.IncrCounterWithLabels(key, 1, labels)
			s.SetGaugeWithLabels(key, 1, labels)
			s.EmitKey(key, 1)
		}, []uint64{0, 0, 0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTimerSink(key, []float64{1, 2, 4})
			tc.emit(s)
			h := s.histogram()
			must.Eq(t, []float64{1, 2, 4}, h.BoundsMs)
			must.Eq(t, tc.counts, h.Counts)
			must.Eq(t, tc.count, h.Count)
		})
	}
}

// TestTimerSink_Global asserts the installed sink counts the timer as the
// clients emit it (without the service name, which the global metrics
// prepend), in milliseconds. It isn't parallel: it replaces the global
// metrics sink.
func TestTimerSink_Global(t *testing.T) {
	s := newTimerSink(UpdateAllocRTTKey, RTTBoundsMs)
	must.NoError(t, installTimerSink(s))
	metrics.MeasureSinceWithLabels([]string{"client", "allocations", "updates", "rpc_time"},
		time.Now().Add(-1500*time.Millisecond), []metrics.Label{{Name: "node_id", Value: "a"}})
	metrics.MeasureSinceWithLabels([]string{"client", "allocations", "updates", "other"},
		time.Now(), nil)
	h := s.histogram()
	must.Eq(t, 1, h.Count)
	p50, ok := h.Quantile(0.5)
	must.True(t, ok)
	must.Between(t, 1400, p50, 1700) // 1.5 s, within a bucket of 10 %
}

func TestRTTBounds(t *testing.T) {
	must.Eq(t, 1, RTTBoundsMs[0])
	last := RTTBoundsMs[len(RTTBoundsMs)-1]
	must.GreaterEq(t, 60_000, last)
	must.Less(t, 66_000, last)
	for i := 1; i < len(RTTBoundsMs); i++ {
		r := RTTBoundsMs[i] / RTTBoundsMs[i-1]
		must.Between(t, 1.09, r, 1.11, must.Sprintf("bucket %d", i))
	}
}
