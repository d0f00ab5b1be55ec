package experiment

import (
	"slices"
	"testing"
)

func TestRoundOrder(t *testing.T) {
	for _, tc := range []struct {
		round, n int
		want     []int
	}{
		{1, 4, []int{0, 1, 2, 3}},
		{2, 4, []int{1, 2, 3, 0}},
		{5, 4, []int{0, 1, 2, 3}},
		{3, 1, []int{0}},
		{1, 0, []int{}},
	} {
		if got := RoundOrder(tc.round, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("RoundOrder(%d, %d) = %v, want %v", tc.round, tc.n, got, tc.want)
		}
	}
}
