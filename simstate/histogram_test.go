package simstate

import (
	"math"
	"testing"
)

func TestHistogram_Quantile(t *testing.T) {
	bounds := []float64{1, 2, 4, 8}
	for _, tc := range []struct {
		name   string
		counts []uint64
		count  uint64
		q      float64
		want   float64
		ok     bool
	}{
		{"no samples", []uint64{0, 0, 0, 0}, 0, 0.5, 0, false},
		{"q zero", []uint64{1, 1, 1, 1}, 1, 0, 0, false},
		{"q above one", []uint64{1, 1, 1, 1}, 1, 1.5, 0, false},
		{"first bucket from zero", []uint64{4, 4, 4, 4}, 4, 0.5, 0.5, true},
		{"first bucket's top", []uint64{4, 4, 4, 4}, 4, 1, 1, true},
		{"interpolated in a bucket", []uint64{0, 0, 10, 10}, 10, 0.5, 3, true},
		{"median across buckets", []uint64{2, 4, 6, 8}, 8, 0.5, 2, true},
		{"p99 in the last bucket", []uint64{50, 90, 98, 100}, 100, 0.99, 6, true},
		{"above the last bound", []uint64{1, 1, 1, 1}, 10, 0.99, 8, true},
		{"empty buckets skipped", []uint64{5, 5, 5, 10}, 10, 0.6, 4.8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Histogram{BoundsMs: bounds, Counts: tc.counts, Count: tc.count}
			got, ok := h.Quantile(tc.q)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("Quantile(%v) = %v, %v; want %v, %v", tc.q, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestHistogram_Sub(t *testing.T) {
	bounds := []float64{1, 2, 4}
	h := func(count uint64, counts ...uint64) *Histogram {
		return &Histogram{BoundsMs: bounds, Counts: counts, Count: count}
	}
	for _, tc := range []struct {
		name      string
		cur, prev *Histogram
		want      *Histogram
		wantErr   bool
	}{
		{"nil earlier reading", h(3, 1, 2, 3), nil, h(3, 1, 2, 3), false},
		{"difference", h(9, 2, 5, 8), h(4, 1, 3, 4), h(5, 1, 2, 4), false},
		{"nothing between", h(4, 1, 3, 4), h(4, 1, 3, 4), h(0, 0, 0, 0), false},
		{"earlier counts more", h(4, 1, 3, 4), h(5, 1, 3, 5), nil, true},
		{"a bucket went down", h(4, 0, 3, 4), h(4, 1, 3, 4), nil, true},
		{"bounds differ", h(4, 1, 3, 4), &Histogram{BoundsMs: []float64{1, 2, 5}, Counts: []uint64{1, 3, 4}, Count: 4}, nil, true},
		{"not cumulative", h(4, 3, 1, 4), nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.cur.Sub(tc.prev)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Sub: error %v, want an error: %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if got.Count != tc.want.Count || len(got.Counts) != len(tc.want.Counts) {
				t.Fatalf("Sub = %+v, want %+v", got, tc.want)
			}
			for i := range got.Counts {
				if got.Counts[i] != tc.want.Counts[i] {
					t.Fatalf("Sub = %+v, want %+v", got, tc.want)
				}
			}
		})
	}
}

func TestHistogram_Add(t *testing.T) {
	a := &Histogram{BoundsMs: []float64{1, 2}, Counts: []uint64{1, 2}, Count: 3}
	b := &Histogram{BoundsMs: []float64{1, 2}, Counts: []uint64{0, 4}, Count: 4}
	got, err := a.Add(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Count != 7 || got.Counts[0] != 1 || got.Counts[1] != 6 {
		t.Errorf("Add = %+v", got)
	}
	if _, err := a.Add(&Histogram{BoundsMs: []float64{1, 3}, Counts: []uint64{0, 4}, Count: 4}); err == nil {
		t.Error("Add of histograms with other bounds: no error")
	}
}
