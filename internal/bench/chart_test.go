package bench

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestCharts(t *testing.T) {
	r := fakeReport()
	dir := t.TempDir()
	if keep := os.Getenv("BENCH_CHART_DIR"); keep != "" {
		dir = keep // to look at the charts
	}
	head := filepath.Join(dir, "headline.png")
	trade := filepath.Join(dir, "tradeoff.png")
	if err := HeadlineChart(r, "v1.5.3", head); err != nil {
		t.Fatal(err)
	}
	if err := TradeoffChart(r, trade); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{head, trade} {
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
	// A report with only the base and failed runs still draws.
	empty := &Report{Count: 30, Rounds: 1, Summaries: Aggregate(nil, []string{"v1.5.3"}, nil, "v1.5.3")}
	if err := HeadlineChart(empty, "v1.5.3", filepath.Join(dir, "h2.png")); err != nil {
		t.Fatal(err)
	}
	if err := TradeoffChart(empty, filepath.Join(dir, "t2.png")); err != nil {
		t.Fatal(err)
	}
}
