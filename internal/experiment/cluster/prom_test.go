package cluster

import (
	"os"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) Metrics {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ParseMetrics(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestParseServerMetrics(t *testing.T) {
	m := parseFile(t, "server.prom")
	for name, want := range map[string]float64{
		MetricUpdateAlloc:          200,
		MetricRaftApply:            259,
		MetricFSMAllocClientUpdate: 198,
		"go_goroutines":            143,
	} {
		got, ok := m.Value(name)
		if !ok || got != want {
			t.Errorf("Value(%s) = %v, %v; want %v", name, got, ok, want)
		}
	}
	if _, ok := m.Value(MetricClientUpdateRPCs); ok {
		t.Errorf("absent metric reported present")
	}
	if m.Has(MetricClientUpdateRPCs) || !m.Has(MetricRaftApply) {
		t.Errorf("Has is wrong")
	}
}

func TestParseMetricsRejectsGarbage(t *testing.T) {
	if _, err := ParseMetrics(strings.NewReader("not a metric line {\n")); err == nil {
		t.Fatal("no error for garbage")
	}
}

func TestClientMetricsByLabel(t *testing.T) {
	m := parseFile(t, "client-fork.prom")
	got, ok := m.ByLabel(MetricClientUpdateRPCs, LabelTrigger)
	if !ok || got["urgent"] != 21 || got["tick"] != 9 || got["retry"] != 0 || len(got) != 2 {
		t.Errorf("ByLabel = %v, %v", got, ok)
	}
	if v, ok := m.Value(MetricClientUpdateRPCs); !ok || v != 30 {
		t.Errorf("Value sums the series: %v", v)
	}
}

func TestSumClientMetrics(t *testing.T) {
	fork := parseFile(t, "client-fork.prom")
	upstream := parseFile(t, "server.prom")
	rpcs, sent, buffered := SumClientMetrics([]Metrics{fork, fork, upstream})
	if rpcs["urgent"] != 42 || rpcs["tick"] != 18 {
		t.Errorf("rpcs = %v", rpcs)
	}
	if sent["urgent"] != 240 || sent["typical"] != 360 {
		t.Errorf("sent = %v", sent)
	}
	if buffered == nil || *buffered != 4 {
		t.Errorf("buffered = %v", buffered)
	}
	rpcs, sent, buffered = SumClientMetrics([]Metrics{upstream, upstream, upstream})
	if rpcs != nil || sent != nil || buffered != nil {
		t.Errorf("upstream clients have no fork metrics: %v %v %v", rpcs, sent, buffered)
	}
}
