package scale

import (
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

func healthy(b bool) *bool { return &b }

func serverAlloc(id, node, status string, h *bool, state string, events int) cluster.AllocStub {
	return cluster.AllocStub{
		ID: id, NodeID: node, ClientStatus: status, DesiredStatus: "run", JobVersion: 1,
		DeploymentStatus: &cluster.AllocDeploymentStatus{Healthy: h},
		TaskStates:       map[string]*cluster.TaskState{"task": {State: state, Events: make([]*cluster.TaskEvent, events)}},
	}
}

func nodeAlloc(id, status string, h *bool, state string, events int) AllocState {
	return AllocState{ID: id, ClientStatus: status, Healthy: h, Tasks: map[string]TaskState{"task": {State: state, Events: events}}}
}

func TestCompare(t *testing.T) {
	servers := []cluster.AllocStub{
		serverAlloc("a1", "n1", "running", healthy(true), "running", 3),
		serverAlloc("a2", "n1", "running", nil, "running", 3),           // the node decided health since
		serverAlloc("a3", "n2", "running", healthy(true), "running", 3), // the node completed it since
		serverAlloc("a4", "n2", "running", healthy(true), "running", 3), // the node has no runner for it
		serverAlloc("a5", "n2", "complete", healthy(true), "dead", 6),   // stopped and GC'd on the node: fine
	}
	nodes := &NodesState{Nodes: []NodeState{
		{Name: "nodesim-0", ID: "n1", Allocs: []AllocState{
			nodeAlloc("a1", "running", healthy(true), "running", 3),
			nodeAlloc("a2", "running", healthy(true), "running", 3),
			nodeAlloc("gone", "complete", nil, "dead", 5), // the servers GC'd it
		}},
		{Name: "nodesim-1", ID: "n2", Allocs: []AllocState{
			nodeAlloc("a3", "complete", healthy(true), "dead", 6),
		}},
	}}
	c := Compare(servers, nodes, map[string]string{"scale-01": "1 of 2 allocations of version 1 running and healthy"})

	if c.Checked != 3 || c.NodesOnly != 1 {
		t.Fatalf("checked %d, nodes only %d; want 3 and 1", c.Checked, c.NodesOnly)
	}
	want := []string{
		"a2 on nodesim-0: health: servers unset, node healthy",
		"a3 on nodesim-1: status: servers running, node complete; task task: servers running with 3 events, node dead with 6",
		"a4: the servers hold it running on node n2, which has no runner for it",
	}
	if strings.Join(c.Lost, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lost:\n%s\nwant:\n%s", strings.Join(c.Lost, "\n"), strings.Join(want, "\n"))
	}
	if len(c.Unconverged) != 1 || c.OK(3) {
		t.Fatalf("unconverged %q, ok %v", c.Unconverged, c.OK(3))
	}
}

func TestCompare_Agree(t *testing.T) {
	servers := []cluster.AllocStub{serverAlloc("a1", "n1", "running", healthy(true), "running", 3)}
	nodes := &NodesState{Nodes: []NodeState{{Name: "nodesim-0", ID: "n1", Allocs: []AllocState{
		nodeAlloc("a1", "running", healthy(true), "running", 3),
	}}}}
	c := Compare(servers, nodes, nil)
	if !c.OK(1) || c.OK(2) {
		t.Fatalf("ok(1) %v, ok(2) %v; want true, false (%+v)", c.OK(1), c.OK(2), c)
	}
}

func TestParseStatus(t *testing.T) {
	cur, peak, err := parseStatus("Name:\tnodesim\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
	if err != nil || cur != 1<<20 || peak != 2<<20 {
		t.Fatalf("got %d, %d, %v", cur, peak, err)
	}
	if _, _, err := parseStatus("Name:\tnodesim\n"); err == nil {
		t.Fatal("no error for a status without VmRSS")
	}
}

func TestRetargetModfile(t *testing.T) {
	in := `module example.com/sim

go 1.20

replace (
	github.com/hashicorp/nomad => ../nomad
	github.com/hashicorp/nomad/api => ../nomad/api
)

replace github.com/hashicorp/hcl => github.com/hashicorp/hcl v1.0.1-0.20201016140508-a07e7d50bbee

require github.com/hashicorp/nomad v0.0.0-00010101000000-000000000000
`
	out, err := RetargetModfile([]byte(in), "/trees/every-tick")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		"github.com/hashicorp/nomad => /trees/every-tick\n",
		"github.com/hashicorp/nomad/api => /trees/every-tick/api\n",
		"github.com/hashicorp/hcl => github.com/hashicorp/hcl v1.0.1-0.20201016140508-a07e7d50bbee",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "../nomad") {
		t.Errorf("the old tree is still replaced in:\n%s", s)
	}
}

func TestOptionsRoundTrip(t *testing.T) {
	o := Options{Scenario: SmokeScenario, Nodesim: "/bin/nodesim", RunOptions: experiment.RunOptions{Nomad: "/bin/nomad", Label: "fork", Dir: "/tmp/run", DataRoot: DefaultDataRoot}}
	o.MinHealthy = 1500 * time.Millisecond
	got, err := ParseOptions(o.Args())
	if err != nil {
		t.Fatal(err)
	}
	if got != o {
		t.Fatalf("got %+v, want %+v", got, o)
	}
	if _, err := ParseOptions([]string{"-nomad=/bin/nomad", "-dir=/tmp"}); err == nil {
		t.Fatal("no error without -nodesim")
	}
	bad := o
	bad.Nodes, bad.Jobs = 1, 20
	if bad.Validate() == nil {
		t.Fatal("no error for jobs of no allocation")
	}
}
