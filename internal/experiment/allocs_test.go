package experiment

import (
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func TestUnconverged(t *testing.T) {
	yes := new(true)
	done := []cluster.AllocStub{
		stub("old1", 0, "stop", ClientComplete, yes),
		stub("old2", 0, "stop", ClientLost, nil),
		stub("new1", 1, "run", ClientRunning, yes),
		stub("new2", 1, "run", ClientRunning, yes),
	}
	if why := Unconverged(done, 2, 1); why != "" {
		t.Fatalf("converged view reported as %q", why)
	}
	for _, tc := range []struct {
		change func([]cluster.AllocStub)
		want   string
	}{
		{func(a []cluster.AllocStub) { a[2].DeploymentStatus = nil }, "1 of 2 allocations of version 1 running and healthy"},
		{func(a []cluster.AllocStub) { a[3].ClientStatus = ClientUnknown }, "new2 is unknown"},
		{func(a []cluster.AllocStub) { a[0].ClientStatus = ClientRunning }, "old1 is to stop but still running"},
		{func(a []cluster.AllocStub) { a[1].ClientStatus = ClientPending }, "old2 is pending"},
	} {
		allocs := append([]cluster.AllocStub(nil), done...)
		tc.change(allocs)
		if why := Unconverged(allocs, 2, 1); !strings.Contains(why, tc.want) {
			t.Errorf("got %q, want %q", why, tc.want)
		}
	}
}

func stub(id string, version uint64, desired, status string, healthy *bool) cluster.AllocStub {
	a := cluster.AllocStub{ID: id, JobVersion: version, DesiredStatus: desired, ClientStatus: status}
	if healthy != nil {
		a.DeploymentStatus = &cluster.AllocDeploymentStatus{Healthy: healthy}
	}
	return a
}

func TestHealth(t *testing.T) {
	for _, c := range []struct {
		h    *bool
		want string
	}{{nil, "unset"}, {new(true), "healthy"}, {new(false), "unhealthy"}} {
		if got := Health(c.h); got != c.want {
			t.Errorf("Health(%v) = %q, want %q", c.h, got, c.want)
		}
	}
}
