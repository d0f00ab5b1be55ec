package nodesim

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
	"github.com/hashicorp/nomad/helper/discover"
	"github.com/hashicorp/nomad/helper/pointer"
	"github.com/hashicorp/nomad/helper/testlog"
	"github.com/hashicorp/nomad/testutil"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"

	"github.com/nomad-client-fork/nomad-client-fork/sim/runner"
)

// TestSimulator_Smoke starts simulated nodes against a Nomad server, and
// asserts they register and run the allocations of a job.
func TestSimulator_Smoke(t *testing.T) {
	const nodes = 5

	srv := testServer(t)
	defer srv.Stop()

	sim, err := Start(&Config{
		Servers: []string{fmt.Sprintf("127.0.0.1:%d", srv.Config.Ports.RPC)},
		Nodes:   nodes,
		DataDir: t.TempDir(),
		Logger:  testlog.HCLogger(t),
	})
	must.NoError(t, err)
	defer func() { must.NoError(t, sim.Shutdown()) }()

	nodeIDs := make(map[string]bool, nodes)
	for _, c := range sim.Clients() {
		nodeIDs[c.NodeID()] = true
	}
	must.MapLen(t, nodes, nodeIDs)

	apiClient, err := api.NewClient(&api.Config{Address: "http://" + srv.HTTPAddr})
	must.NoError(t, err)

	// All simulated nodes register and are ready.
	must.Wait(t, wait.InitialSuccess(
		wait.ErrorFunc(func() error {
			stubs, _, err := apiClient.Nodes().List(nil)
			if err != nil {
				return err
			}
			ready := 0
			for _, stub := range stubs {
				if nodeIDs[stub.ID] && stub.Status == api.NodeStatusReady {
					ready++
				}
			}
			if ready != nodes {
				return fmt.Errorf("%d of %d nodes ready", ready, nodes)
			}
			return nil
		}),
		wait.Timeout(60*time.Second),
		wait.Gap(100*time.Millisecond),
	))

	// A job's allocations are placed on simulated nodes and reported
	// running by the simulated alloc runner.
	job := smokeJob(nodes)
	_, _, err = apiClient.Jobs().Register(job, nil)
	must.NoError(t, err)

	must.Wait(t, wait.InitialSuccess(
		wait.ErrorFunc(func() error {
			allocs, _, err := apiClient.Jobs().Allocations(*job.ID, false, nil)
			if err != nil {
				return err
			}
			running := 0
			for _, alloc := range allocs {
				if !nodeIDs[alloc.NodeID] {
					return fmt.Errorf("allocation %s placed on unknown node %s", alloc.ID, alloc.NodeID)
				}
				if alloc.ClientStatus == api.AllocClientStatusRunning &&
					alloc.ClientDescription == runner.ClientDescription {
					running++
				}
			}
			if running != nodes {
				return fmt.Errorf("%d of %d allocations running", running, nodes)
			}
			return nil
		}),
		wait.Timeout(60*time.Second),
		wait.Gap(100*time.Millisecond),
	))
}

// testServer starts a Nomad server. It runs in its own process, from the
// nomad binary on PATH, like the servers the simulator is meant for. It also
// keeps the data races of the in-process test server of Nomad v1.5.3 (in
// plan apply) out of the tests' race detector.
func testServer(t *testing.T) *testutil.TestServer {
	t.Helper()
	_, err := discover.NomadExecutable()
	must.NoError(t, err, must.Sprint("the nomad binary must be on PATH"))
	return testutil.NewTestServer(t, func(c *testutil.TestServerConfig) {
		c.LogLevel = "WARN"
		c.AdvertiseAddrs = &testutil.Advertise{
			HTTP: "127.0.0.1",
			RPC:  "127.0.0.1",
			Serf: "127.0.0.1",
		}
	})
}

// smokeJob returns a service job with count allocations for simulated nodes.
func smokeJob(count int) *api.Job {
	task := api.NewTask("task", "mock_driver")
	task.Config = map[string]interface{}{"run_for": "1h"}
	task.Resources = &api.Resources{
		CPU:      pointer.Of(10),
		MemoryMB: pointer.Of(10),
	}

	group := api.NewTaskGroup("group", count)
	group.AddTask(task)

	job := api.NewServiceJob("nodesim-smoke", "nodesim-smoke", "global", 50)
	job.Datacenters = []string{DefaultDatacenter}
	job.Constrain(api.NewConstraint("${meta."+MetaKey+"}", "=", "true"))
	job.AddTaskGroup(group)
	return job
}
