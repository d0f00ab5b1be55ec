package worktree

import (
	"fmt"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

func TestMatchByPosition(t *testing.T) {
	// Each case: the old series' numbers, and per new commit the old
	// number name or patch-id matched (0: unmatched); want: the pairs
	// new index -> old number.
	for _, tc := range []struct {
		name    string
		old     int
		matched []int
		want    string
	}{
		{"one replaced, another dropped", 8, []int{1, 3, 4, 5, 0, 7, 8}, "[4->6]"},
		{"two replaced in order", 4, []int{1, 0, 0, 4}, "[1->2 2->3]"},
		{"at the start", 3, []int{0, 2, 3}, "[0->1]"},
		{"at the end", 3, []int{1, 2, 0}, "[2->3]"},
		{"dropped and one new: unmatched", 4, []int{1, 0, 0}, "[]"},
		{"more new than gone: unmatched", 3, []int{1, 0, 0, 3}, "[]"},
		{"appended to an unchanged series", 2, []int{1, 2, 0}, "[]"},
		{"reordered neighbours: unmatched", 4, []int{3, 0, 1, 4}, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := make([]series.Patch, tc.old)
			for i := range old {
				old[i] = series.Patch{Number: i + 1, Name: fmt.Sprintf("%04d-p%d.patch", i+1, i+1)}
			}
			files := make([]series.File, len(tc.matched))
			matched := make([]*series.Patch, len(tc.matched))
			for i, n := range tc.matched {
				if n > 0 {
					matched[i] = &old[n-1]
				}
			}
			var got []string
			for _, m := range matchByPosition(files, old, matched) {
				got = append(got, fmt.Sprintf("%d->%d", m.file, old[m.old].Number))
			}
			if s := fmt.Sprint(got); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
		})
	}
}
