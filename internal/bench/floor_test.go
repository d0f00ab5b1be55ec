package bench

import (
	"testing"
	"time"
)

func TestFloor(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, c := range []struct {
		name string
		acts []Acted
		want int
	}{
		{"none", nil, 0},
		{"times unknown", []Acted{{Node: "a", Group: "e1"}}, 0},
		// A deployment wave on one client: one RPC, sent when the last
		// allocation of the group is healthy.
		{"one group", []Acted{{"a", "e1", at(0)}, {"a", "e1", at(900)}, {"a", "e1", at(1500)}}, 1},
		// Each client reports its own.
		{"two clients", []Acted{{"a", "e1", at(0)}, {"b", "e1", at(0)}}, 2},
		// Two waves seconds apart.
		{"two waves", []Acted{{"a", "e1", at(0)}, {"a", "e2", at(3000)}}, 2},
		// Groups ready within one tick of each other share an RPC...
		{"within a tick", []Acted{{"a", "d1", at(0)}, {"a", "d2", at(150)}, {"a", "d3", at(200)}}, 1},
		// ...and a window starts at its first ready time, not on a grid.
		{"windows", []Acted{{"a", "d1", at(0)}, {"a", "d2", at(201)}, {"a", "d3", at(350)}, {"a", "d4", at(400)}, {"a", "d5", at(402)}}, 3},
	} {
		if got := Floor(c.acts, FloorWindow); got != c.want {
			t.Errorf("%s: Floor = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestGroups(t *testing.T) {
	t0 := time.Now()
	acts := []Acted{{"a", "e1", t0}, {"a", "e1", t0}, {"b", "e1", t0}, {"a", "e2", t0}}
	if got := Groups(acts); got != 3 {
		t.Errorf("Groups = %d, want 3", got)
	}
}
