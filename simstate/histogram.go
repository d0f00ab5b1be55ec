package simstate

import (
	"errors"
	"fmt"
	"slices"
)

// Histogram counts durations in buckets of fixed upper bounds. A simulator
// serves one counting from its start; the difference of two readings (Sub)
// counts the samples between them.
type Histogram struct {
	// BoundsMs are the buckets' upper bounds in milliseconds, increasing.
	BoundsMs []float64 `json:"bounds_ms"`
	// Counts are cumulative: Counts[i] is the number of samples of at most
	// BoundsMs[i].
	Counts []uint64 `json:"counts"`
	// Count is the number of samples, those above the last bound included.
	Count uint64 `json:"count"`
}

// valid reports why h is not a histogram, or nil.
func (h *Histogram) valid() error {
	if len(h.BoundsMs) == 0 || len(h.Counts) != len(h.BoundsMs) {
		return fmt.Errorf("%d bounds and %d counts", len(h.BoundsMs), len(h.Counts))
	}
	for i := range h.Counts {
		if i > 0 && (h.BoundsMs[i] <= h.BoundsMs[i-1] || h.Counts[i] < h.Counts[i-1]) {
			return fmt.Errorf("bucket %d: bounds not increasing or counts not cumulative", i)
		}
	}
	if h.Count < h.Counts[len(h.Counts)-1] {
		return errors.New("count below the last bucket's")
	}
	return nil
}

// Sub returns the samples h counts that prev, an earlier reading of the
// same histogram, did not. A nil prev counts none.
func (h *Histogram) Sub(prev *Histogram) (*Histogram, error) {
	if err := h.valid(); err != nil {
		return nil, err
	}
	out := &Histogram{BoundsMs: slices.Clone(h.BoundsMs), Counts: slices.Clone(h.Counts), Count: h.Count}
	if prev == nil {
		return out, nil
	}
	if err := prev.valid(); err != nil {
		return nil, fmt.Errorf("the earlier reading: %w", err)
	}
	if !slices.Equal(h.BoundsMs, prev.BoundsMs) {
		return nil, errors.New("the readings' bounds differ")
	}
	if prev.Count > h.Count {
		return nil, errors.New("the earlier reading counts more samples: not the same histogram")
	}
	for i := range out.Counts {
		if prev.Counts[i] > h.Counts[i] {
			return nil, fmt.Errorf("bucket %d: the earlier reading counts more samples: not the same histogram", i)
		}
		out.Counts[i] -= prev.Counts[i]
	}
	out.Count -= prev.Count
	return out, out.valid()
}

// Add returns the samples of h and o together: the histograms of two
// simulators, with the same bounds.
func (h *Histogram) Add(o *Histogram) (*Histogram, error) {
	if err := h.valid(); err != nil {
		return nil, err
	}
	if err := o.valid(); err != nil {
		return nil, err
	}
	if !slices.Equal(h.BoundsMs, o.BoundsMs) {
		return nil, errors.New("the histograms' bounds differ")
	}
	out := &Histogram{BoundsMs: slices.Clone(h.BoundsMs), Counts: slices.Clone(h.Counts), Count: h.Count + o.Count}
	for i := range out.Counts {
		out.Counts[i] += o.Counts[i]
	}
	return out, nil
}

// Quantile returns the q-quantile (0 < q ≤ 1) of the samples in
// milliseconds: the bucket holding the sample of rank q × Count, and within
// it the linear interpolation between its bounds (the first bucket's lower
// bound is 0). A quantile above the last bound reads as the last bound. ok
// is false when there are no samples or q is out of range.
func (h *Histogram) Quantile(q float64) (ms float64, ok bool) {
	if h == nil || h.Count == 0 || !(q > 0 && q <= 1) || h.valid() != nil {
		return 0, false
	}
	rank := q * float64(h.Count)
	var lower float64
	var below uint64
	for i, upper := range h.BoundsMs {
		if n := h.Counts[i]; float64(n) >= rank {
			return lower + (upper-lower)*(rank-float64(below))/float64(n-below), true
		}
		lower, below = upper, h.Counts[i]
	}
	return h.BoundsMs[len(h.BoundsMs)-1], true
}
