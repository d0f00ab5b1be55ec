package bench

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestSummaryChart(t *testing.T) {
	r := fakeReport()
	dir := t.TempDir()
	if keep := os.Getenv("BENCH_CHART_DIR"); keep != "" {
		dir = keep // to look at the charts
	}
	for _, c := range Charts {
		f := filepath.Join(dir, c.File)
		if err := SummaryChart(r, c.Key, c.Title, f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 300 {
			t.Errorf("%s is %v", f, b)
		}
	}
	// A report with only failed runs, or none, still draws.
	empty := &Report{Rounds: 1, Base: "v1.5.3", Tables: Aggregate(nil, []string{"single"}, []string{"alpha"}, []string{"v1.5.3"}, nil, "v1.5.3")}
	if err := SummaryChart(empty, "seconds", "x", filepath.Join(dir, "e.png")); err != nil {
		t.Fatal(err)
	}
	if err := SummaryChart(&Report{}, "update_alloc_rpcs", "x", filepath.Join(dir, "e2.png")); err != nil {
		t.Fatal(err)
	}
}
