package bench

import (
	"sort"
	"time"
)

// FloorWindow is the floor's tick: updates the servers act on that become
// ready on one client within one tick of each other could share an RPC
// without any of them waiting longer than v1.5.3's own cadence.
const FloorWindow = 200 * time.Millisecond

// Acted is an update the servers act on, as it happened on its client:
// Node is the client, Group the allocations placed together (by one
// evaluation on that node) whose updates could ride one RPC, At when the
// client knew it (its clock: a task's start or finish, a health decision).
type Acted struct {
	Node, Group string
	At          time.Time
}

// Floor is the fewest Node.UpdateAlloc RPCs that could carry the acted-on
// updates: per client, the groups' ready times (the latest update of each
// group) covered by as few windows of length window as possible. Updates
// without a time (zero At) are left out.
func Floor(acts []Acted, window time.Duration) int {
	type key struct{ node, group string }
	ready := map[key]time.Time{}
	for _, a := range acts {
		if a.At.IsZero() {
			continue
		}
		k := key{a.Node, a.Group}
		if a.At.After(ready[k]) {
			ready[k] = a.At
		}
	}
	perNode := map[string][]time.Time{}
	for k, t := range ready {
		perNode[k.node] = append(perNode[k.node], t)
	}
	n := 0
	for _, ts := range perNode {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
		var end time.Time
		for i, t := range ts {
			if i == 0 || t.After(end) {
				n++
				end = t.Add(window)
			}
		}
	}
	return n
}

// Groups is the number of distinct groups (per client) among acts.
func Groups(acts []Acted) int {
	seen := map[[2]string]bool{}
	for _, a := range acts {
		seen[[2]string{a.Node, a.Group}] = true
	}
	return len(seen)
}

// floorOf is Floor with the tick as its window, as a workload result's
// floor.
func floorOf(acts []Acted) *float64 {
	f := float64(Floor(acts, FloorWindow))
	return &f
}
