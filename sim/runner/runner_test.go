package runner

import (
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/client/config"
	"github.com/hashicorp/nomad/client/state"
	"github.com/hashicorp/nomad/helper/testlog"
	"github.com/hashicorp/nomad/nomad/mock"
	"github.com/hashicorp/nomad/nomad/structs"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"
)

// TestImports asserts that the runner only depends on the AllocRunner
// interface and its configuration, and that no package of the simulator
// imports the real alloc runner.
func TestImports(t *testing.T) {
	goBin, err := exec.LookPath("go")
	must.NoError(t, err)

	list := func(args ...string) []string {
		t.Helper()
		cmd := exec.Command(goBin, append([]string{"list"}, args...)...)
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s: %s", strings.Join(args, " "), ee.Stderr)
		}
		must.NoError(t, err)
		return strings.Fields(string(out))
	}

	deps := list("-deps", "github.com/nomad-client-fork/nomad-client-fork/sim/runner")
	must.SliceContains(t, deps, "github.com/hashicorp/nomad/client/allocrunner/interfaces")
	must.SliceNotContains(t, deps, "github.com/hashicorp/nomad/client")
	must.SliceNotContains(t, deps, "github.com/hashicorp/nomad/client/allocrunner")

	imports := list("-f", `{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}`,
		"github.com/nomad-client-fork/nomad-client-fork/sim/...")
	must.SliceNotContains(t, imports, "github.com/hashicorp/nomad/client/allocrunner")
}

// updates records the allocation updates of a runner.
type updates struct {
	mu      sync.Mutex
	updates []*structs.Allocation
}

func (u *updates) AllocStateUpdated(alloc *structs.Allocation) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.updates = append(u.updates, alloc)
}

func (u *updates) PutAllocation(*structs.Allocation) error { return nil }

// statuses returns the client statuses of the updates.
func (u *updates) statuses() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	statuses := make([]string, 0, len(u.updates))
	for _, alloc := range u.updates {
		statuses = append(statuses, alloc.ClientStatus)
	}
	return statuses
}

func testRunner(t *testing.T, alloc *structs.Allocation) (*AllocRunner, *updates) {
	clientConf, cleanup := config.TestClientConfig(t)
	t.Cleanup(cleanup)

	u := new(updates)
	ar, err := New(&config.AllocRunnerConfig{
		Logger:       testlog.HCLogger(t),
		ClientConfig: clientConf,
		Alloc:        alloc,
		StateDB:      new(state.NoopDB),
		StateUpdater: u,
	})
	must.NoError(t, err)
	return ar.(*AllocRunner), u
}

// waitForStatuses waits until the client statuses of the updates are the
// given ones, or start with them if prefix is true.
func waitForStatuses(t *testing.T, u *updates, prefix bool, statuses ...string) {
	t.Helper()
	want := strings.Join(statuses, ",")
	must.Wait(t, wait.InitialSuccess(
		wait.BoolFunc(func() bool {
			got := u.statuses()
			if prefix && len(got) > len(statuses) {
				got = got[:len(statuses)]
			}
			return strings.Join(got, ",") == want
		}),
		wait.Timeout(5*time.Second),
		wait.Gap(10*time.Millisecond),
	), must.Func(func() string { return "updates: " + strings.Join(u.statuses(), ",") }))
}

func TestAllocRunner(t *testing.T) {
	stopped := func(alloc *structs.Allocation) *structs.Allocation {
		alloc = alloc.Copy()
		alloc.DesiredStatus = structs.AllocDesiredStatusStop
		return alloc
	}

	cases := []struct {
		name string

		alloc *structs.Allocation

		// update, if set, is sent to the runner once it reported running.
		update func(*structs.Allocation) *structs.Allocation

		// destroy destroys the runner once it reported running.
		destroy bool

		statuses []string
	}{
		{
			name:     "service stopped by server",
			alloc:    mock.Alloc(),
			update:   stopped,
			statuses: []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete},
		},
		{
			name:     "service destroyed",
			alloc:    mock.Alloc(),
			destroy:  true,
			statuses: []string{structs.AllocClientStatusRunning},
		},
		{
			name:     "batch completes",
			alloc:    mock.BatchAlloc(),
			statuses: []string{structs.AllocClientStatusRunning, structs.AllocClientStatusComplete},
		},
		{
			name:     "stopped before running",
			alloc:    stopped(mock.Alloc()),
			statuses: []string{structs.AllocClientStatusComplete},
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar, u := testRunner(t, tc.alloc)
			go ar.Run()

			waitForStatuses(t, u, true, tc.statuses[0])
			if tc.update != nil {
				ar.Update(tc.update(ar.Alloc()))
			}
			if tc.destroy {
				ar.Destroy()
				<-ar.DestroyCh()
				must.True(t, ar.IsDestroyed())
			}

			select {
			case <-ar.WaitCh():
			case <-time.After(5 * time.Second):
				t.Fatal("timed out waiting for Run to exit")
			}
			waitForStatuses(t, u, false, tc.statuses...)

			// The runner's state matches its last update.
			last := tc.statuses[len(tc.statuses)-1]
			must.Eq(t, last, ar.AllocState().ClientStatus)
			must.Eq(t, last, ar.Alloc().ClientStatus)
			for _, ts := range ar.AllocState().TaskStates {
				must.Eq(t, last == structs.AllocClientStatusComplete, ts.State == structs.TaskStateDead)
			}
		})
	}
}
