package cluster

import (
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics is one scrape of a Prometheus text exposition.
type Metrics map[string]*dto.MetricFamily

// ParseMetrics parses the Prometheus text format.
func ParseMetrics(r io.Reader) (Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing prometheus metrics: %w", err)
	}
	return Metrics(fams), nil
}

// Has reports whether the scrape holds the family name.
func (m Metrics) Has(name string) bool {
	f, ok := m[name]
	return ok && len(f.GetMetric()) > 0
}

// Value returns the family's value summed over its series: a counter's or
// gauge's value, a summary's or histogram's sample count. ok is false when
// the family is absent.
func (m Metrics) Value(name string) (v float64, ok bool) {
	f, ok := m[name]
	if !ok {
		return 0, false
	}
	for _, s := range f.GetMetric() {
		v += sampleValue(s)
	}
	return v, true
}

// Sum returns the sum of the samples of a summary or histogram family,
// summed over its series. ok is false when the family is absent or holds
// neither.
func (m Metrics) Sum(name string) (v float64, ok bool) {
	f, found := m[name]
	if !found {
		return 0, false
	}
	for _, s := range f.GetMetric() {
		switch {
		case s.Summary != nil:
			v, ok = v+s.Summary.GetSampleSum(), true
		case s.Histogram != nil:
			v, ok = v+s.Histogram.GetSampleSum(), true
		}
	}
	return v, ok
}

// ByLabel returns the family's values per value of label (series without
// the label are summed under ""). ok is false when the family is absent.
func (m Metrics) ByLabel(name, label string) (map[string]float64, bool) {
	f, ok := m[name]
	if !ok {
		return nil, false
	}
	out := map[string]float64{}
	for _, s := range f.GetMetric() {
		key := ""
		for _, l := range s.GetLabel() {
			if l.GetName() == label {
				key = l.GetValue()
			}
		}
		out[key] += sampleValue(s)
	}
	return out, true
}

func sampleValue(s *dto.Metric) float64 {
	switch {
	case s.Counter != nil:
		return s.Counter.GetValue()
	case s.Gauge != nil:
		return s.Gauge.GetValue()
	case s.Summary != nil:
		return float64(s.Summary.GetSampleCount())
	case s.Histogram != nil:
		return float64(s.Histogram.GetSampleCount())
	case s.Untyped != nil:
		return s.Untyped.GetValue()
	}
	return 0
}

// SumClientMetrics sums the fork's client metrics over the clients' scrapes;
// each result is nil when no client exposes that metric.
func SumClientMetrics(scrapes []Metrics) (rpcs, sent map[string]float64, buffered *float64) {
	for _, m := range scrapes {
		if byTrigger, ok := m.ByLabel(MetricClientUpdateRPCs, LabelTrigger); ok {
			if rpcs == nil {
				rpcs = map[string]float64{}
			}
			for k, v := range byTrigger {
				rpcs[k] += v
			}
		}
		if byPriority, ok := m.ByLabel(MetricClientUpdatesSent, LabelPriority); ok {
			if sent == nil {
				sent = map[string]float64{}
			}
			for k, v := range byPriority {
				sent[k] += v
			}
		}
		if v, ok := m.Value(MetricClientUpdatesBuffered); ok {
			if buffered == nil {
				buffered = new(float64)
			}
			*buffered += v
		}
	}
	return rpcs, sent, buffered
}
