package bench

import (
	"strings"
	"testing"
)

func TestParseWorkloads(t *testing.T) {
	all, err := ParseWorkloads("")
	if err != nil || strings.Join(all, ",") != strings.Join(WorkloadNames(), ",") {
		t.Errorf("default: %v %v", all, err)
	}
	if got, _ := ParseWorkloads("all"); len(got) != len(Workloads) {
		t.Errorf("all: %v", got)
	}
	// The suite's order, whatever the order given.
	got, err := ParseWorkloads("drain, rolling")
	if err != nil || strings.Join(got, ",") != "rolling,drain" {
		t.Errorf("drain,rolling: %v %v", got, err)
	}
	for in, want := range map[string]string{"bogus": `unknown workload "bogus"`, "drain,drain": "given twice"} {
		if _, err := ParseWorkloads(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", in, err)
		}
	}
	for _, name := range []string{"rolling", "rolling-small", "batch-queue", "dispatch", "drain", "no-deploy", "periodic", "reschedule"} {
		w, ok := WorkloadByName(name)
		if !ok || w.Latency() == "" || SuiteSizes[name] < 1 || SmokeSizes[name] < 1 {
			t.Errorf("workload %s: %v, sizes %d %d", name, ok, SuiteSizes[name], SmokeSizes[name])
		}
	}
}

func TestParseSizes(t *testing.T) {
	s, err := ParseSizes("rolling=300, drain=12")
	if err != nil || s["rolling"] != 300 || s["drain"] != 12 || len(s) != 2 {
		t.Fatalf("%v %v", s, err)
	}
	if s.String() != "drain=12,rolling=300" {
		t.Errorf("String %q", s.String())
	}
	for in, want := range map[string]string{"rolling": "want workload=N", "bogus=3": "want workload=N", "drain=0": "at least 1", "drain=x": "at least 1"} {
		if _, err := ParseSizes(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
	sc := Scenario{Sizes: Sizes{"drain": 5}}
	if sc.Size("drain") != 5 || sc.Size("rolling") != SuiteSizes["rolling"] {
		t.Errorf("Size: %d %d", sc.Size("drain"), sc.Size("rolling"))
	}
}

func TestBatchSlots(t *testing.T) {
	// The clients fit a third of the allocations: they queue.
	for _, c := range []struct{ n, clients, want int }{{90, 3, 10}, {12, 3, 1}, {2, 3, 1}} {
		if got := batchSlots(c.n, c.clients); got != c.want {
			t.Errorf("batchSlots(%d, %d) = %d, want %d", c.n, c.clients, got, c.want)
		}
	}
}
