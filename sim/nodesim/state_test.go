package nodesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/helper/pointer"
	"github.com/hashicorp/nomad/helper/testlog"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/nomad-client-fork/nomad-client-fork/sim/runner"
)

// TestSimulator_RealisticRestore runs realistic nodes through a deployment,
// checks that their own view (State, served by Handler) agrees with the
// servers', then starts them again on the same data dir: the restored
// runners hold the same allocations, running and healthy, and report no
// task received again.
func TestSimulator_RealisticRestore(t *testing.T) {
	const nodes = 3

	srv := testServer(t)
	defer srv.Stop()

	conf := &Config{
		Servers: []string{fmt.Sprintf("127.0.0.1:%d", srv.Config.Ports.RPC)},
		Nodes:   nodes,
		DataDir: t.TempDir(),
		Logger:  testlog.HCLogger(t),
		Timings: &runner.Timings{Setup: time.Millisecond, Start: 10 * time.Millisecond, Kill: time.Millisecond},
	}
	sim, err := Start(conf)
	must.NoError(t, err)
	defer func() { must.NoError(t, sim.Shutdown()) }()

	apiClient, err := api.NewClient(&api.Config{Address: "http://" + srv.HTTPAddr})
	must.NoError(t, err)

	job := smokeJob(2 * nodes)
	job.TaskGroups[0].Update = &api.UpdateStrategy{
		MaxParallel:     pointer.Of(2 * nodes),
		HealthCheck:     pointer.Of("task_states"),
		MinHealthyTime:  pointer.Of(100 * time.Millisecond),
		HealthyDeadline: pointer.Of(time.Minute),
	}
	_, _, err = apiClient.Jobs().Register(job, nil)
	must.NoError(t, err)

	// The servers see every allocation running and healthy.
	servers := func() map[string]*api.AllocationListStub {
		allocs, _, err := apiClient.Jobs().Allocations(*job.ID, false, nil)
		must.NoError(t, err)
		out := map[string]*api.AllocationListStub{}
		for _, a := range allocs {
			out[a.ID] = a
		}
		return out
	}
	must.Wait(t, wait.InitialSuccess(
		wait.ErrorFunc(func() error {
			healthy := 0
			for _, a := range servers() {
				if a.ClientStatus == api.AllocClientStatusRunning && a.DeploymentStatus != nil &&
					a.DeploymentStatus.Healthy != nil && *a.DeploymentStatus.Healthy {
					healthy++
				}
			}
			if healthy != 2*nodes {
				return fmt.Errorf("%d of %d allocations running and healthy", healthy, 2*nodes)
			}
			return nil
		}),
		wait.Timeout(60*time.Second),
		wait.Gap(100*time.Millisecond),
	))

	// The nodes' own view, through the HTTP API, agrees.
	hs := httptest.NewServer(sim.Handler())
	defer hs.Close()
	resp, err := http.Get(hs.URL + StatePath)
	must.NoError(t, err)
	var st State
	must.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	must.Len(t, nodes, st.Nodes)
	byServers := servers()
	seen := 0
	for _, n := range st.Nodes {
		for _, a := range n.Allocs {
			s := byServers[a.ID]
			must.NotNil(t, s)
			must.Eq(t, n.ID, s.NodeID)
			must.Eq(t, s.ClientStatus, a.ClientStatus)
			must.Eq(t, s.DeploymentStatus.Healthy, a.Healthy)
			must.Eq(t, len(s.TaskStates["task"].Events), a.Tasks["task"].Events)
			seen++
		}
	}
	must.Eq(t, 2*nodes, seen)
	// The nodes' Node.UpdateAlloc round trips reached the simulator's
	// histogram (the series' timer, 0007).
	must.NotNil(t, st.UpdateAllocRTT)
	must.Positive(t, st.UpdateAllocRTT.Count)

	// Without the nodes: the simulator's figures alone.
	resp, err = http.Get(hs.URL + StatePath + "?nodes=false")
	must.NoError(t, err)
	var figures State
	must.NoError(t, json.NewDecoder(resp.Body).Decode(&figures))
	resp.Body.Close()
	must.SliceEmpty(t, figures.Nodes)
	must.NotNil(t, figures.UpdateAllocRTT)
	must.Positive(t, figures.HeapInuse)

	// Started again on the same data dir, the nodes restore their
	// allocations as they were.
	must.NoError(t, sim.Shutdown())
	sim, err = Start(conf)
	must.NoError(t, err)
	restored := sim.State()
	seen = 0
	for _, n := range restored.Nodes {
		for _, a := range n.Allocs {
			must.Eq(t, api.AllocClientStatusRunning, a.ClientStatus)
			must.Eq(t, pointer.Of(true), a.Healthy)
			must.Eq(t, 3, a.Tasks["task"].Events) // Received, Task Setup, Started
			seen++
		}
	}
	must.Eq(t, 2*nodes, seen)
}
