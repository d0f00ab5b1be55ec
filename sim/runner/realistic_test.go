package runner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/client/config"
	"github.com/hashicorp/nomad/client/state"
	"github.com/hashicorp/nomad/helper/testlog"
	"github.com/hashicorp/nomad/helper/uuid"
	"github.com/hashicorp/nomad/nomad/mock"
	"github.com/hashicorp/nomad/nomad/structs"
	"github.com/shoenig/test/must"
	"github.com/shoenig/test/wait"
)

// realisticRunner returns a realistic runner of alloc keeping its state in db.
func realisticRunner(t *testing.T, timings Timings, alloc *structs.Allocation, db state.StateDB) (*AllocRunner, *updates) {
	t.Helper()
	clientConf, cleanup := config.TestClientConfig(t)
	t.Cleanup(cleanup)

	factory, err := NewRealistic(timings)
	must.NoError(t, err)
	u := new(updates)
	ar, err := factory(&config.AllocRunnerConfig{
		Logger:       testlog.HCLogger(t),
		ClientConfig: clientConf,
		Alloc:        alloc,
		StateDB:      db,
		StateUpdater: u,
	})
	must.NoError(t, err)
	return ar.(*AllocRunner), u
}

// deployedAlloc returns a service allocation of a deployment whose group's
// health is its task states after minHealthy.
func deployedAlloc(minHealthy time.Duration) *structs.Allocation {
	alloc := mock.Alloc()
	alloc.DeploymentID = uuid.Generate()
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	tg.Update = structs.DefaultUpdateStrategy.Copy()
	tg.Update.HealthCheck = structs.UpdateStrategyHealthCheck_TaskStates
	tg.Update.MinHealthyTime = minHealthy
	return alloc
}

// steps describes the updates: per update its client status, the health
// (- unset, healthy, unhealthy) and the task's events, such as
// "running healthy Received,Task Setup,Started".
func (u *updates) steps(task string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, 0, len(u.updates))
	for _, a := range u.updates {
		out = append(out, describe(a, task))
	}
	return out
}

func describe(a *structs.Allocation, task string) string {
	health := "-"
	if a.DeploymentStatus != nil && a.DeploymentStatus.Healthy != nil {
		health = "unhealthy"
		if *a.DeploymentStatus.Healthy {
			health = "healthy"
		}
	}
	var events []string
	if ts := a.TaskStates[task]; ts != nil {
		for _, e := range ts.Events {
			events = append(events, e.Type)
		}
	}
	return fmt.Sprintf("%s %s %s", a.ClientStatus, health, strings.Join(events, ","))
}

// waitForSteps waits until the runner reported exactly the steps.
func waitForSteps(t *testing.T, u *updates, task string, steps ...string) {
	t.Helper()
	want := strings.Join(steps, "\n")
	must.Wait(t, wait.InitialSuccess(
		wait.BoolFunc(func() bool { return strings.Join(u.steps(task), "\n") == want }),
		wait.Timeout(5*time.Second),
		wait.Gap(5*time.Millisecond),
	), must.Func(func() string {
		return "want:\n" + want + "\ngot:\n" + strings.Join(u.steps(task), "\n")
	}))
}

func waitExit(t *testing.T, ar *AllocRunner) {
	t.Helper()
	select {
	case <-ar.WaitCh():
	case <-time.After(5 * time.Second):
		t.Fatal("timed out waiting for Run to exit")
	}
}

// stopped returns the servers' version of alloc told to stop.
func stopped(alloc *structs.Allocation) *structs.Allocation {
	alloc = alloc.Copy()
	alloc.DesiredStatus = structs.AllocDesiredStatusStop
	return alloc
}

const (
	received = "pending - Received"
	setUp    = "pending - Received,Task Setup"
	started  = "running - Received,Task Setup,Started"
	healthy  = "running healthy Received,Task Setup,Started"
	killing  = "running healthy Received,Task Setup,Started,Killing"
	killed   = "complete healthy Received,Task Setup,Started,Killing,Terminated,Killed"
)

func TestRealistic_ServiceLifecycle(t *testing.T) {
	minHealthy := 200 * time.Millisecond
	alloc := deployedAlloc(minHealthy)
	task := alloc.Job.TaskGroups[0].Tasks[0].Name
	ar, u := realisticRunner(t, Timings{Setup: 5 * time.Millisecond, Start: 20 * time.Millisecond, Kill: 5 * time.Millisecond},
		alloc, state.NewMemDB(testlog.HCLogger(t)))
	go ar.Run()

	waitForSteps(t, u, task, received, setUp, started, healthy)

	// The health follows the tasks' start by at least min_healthy_time, and
	// each step its predecessor by at least its delay.
	u.mu.Lock()
	ts := u.updates[3].TaskStates[task]
	healthAt := u.updates[3].DeploymentStatus.Timestamp
	events := ts.Events
	u.mu.Unlock()
	must.GreaterEq(t, minHealthy, healthAt.Sub(ts.StartedAt))
	must.GreaterEq(t, 5*time.Millisecond, time.Duration(events[1].Time-events[0].Time))
	must.GreaterEq(t, 20*time.Millisecond, time.Duration(events[2].Time-events[1].Time))
	must.Eq(t, structs.TaskBuildingTaskDir, events[1].Message)

	ar.Update(stopped(ar.Alloc()))
	waitExit(t, ar)
	waitForSteps(t, u, task, received, setUp, started, healthy, killing, killed)

	state := ar.AllocState()
	must.Eq(t, structs.AllocClientStatusComplete, state.ClientStatus)
	must.Eq(t, structs.TaskStateDead, state.TaskStates[task].State)
	must.False(t, state.TaskStates[task].Failed)
}

func TestRealistic_NoDeployment(t *testing.T) {
	// Outside a deployment (a migration, such as a drain's replacement)
	// the real health watcher decides health with the group's migrate
	// block; a deployment whose group has no update block decides nothing,
	// and the runner waits for the servers once its tasks run.
	migrating := mock.Alloc()
	migrating.Job.TaskGroups[0].Migrate = &structs.MigrateStrategy{MaxParallel: 1,
		HealthCheck: structs.MigrateStrategyHealthStates, MinHealthyTime: 20 * time.Millisecond, HealthyDeadline: time.Minute}
	noUpdate := mock.Alloc()
	noUpdate.DeploymentID = uuid.Generate()
	noUpdate.Job.TaskGroups[0].Update = nil
	for _, tc := range []struct {
		name  string
		alloc *structs.Allocation
		ran   []string // the steps until the stop
		end   []string // then
	}{
		{"migration", migrating, []string{received, setUp, started, healthy}, []string{killing, killed}},
		{"deployment without update block", noUpdate, []string{received, setUp, started}, []string{
			"running - Received,Task Setup,Started,Killing",
			"complete - Received,Task Setup,Started,Killing,Terminated,Killed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := tc.alloc.Job.TaskGroups[0].Tasks[0].Name
			ar, u := realisticRunner(t, Timings{}, tc.alloc, state.NewMemDB(testlog.HCLogger(t)))
			go ar.Run()

			waitForSteps(t, u, task, tc.ran...)
			ar.Update(stopped(ar.Alloc()))
			waitExit(t, ar)
			waitForSteps(t, u, task, append(tc.ran, tc.end...)...)
		})
	}
}

func TestRealistic_StoppedBeforeStart(t *testing.T) {
	alloc := deployedAlloc(time.Second)
	task := alloc.Job.TaskGroups[0].Tasks[0].Name
	// The task would start an hour after it is set up.
	ar, u := realisticRunner(t, Timings{Start: time.Hour}, alloc, state.NewMemDB(testlog.HCLogger(t)))
	go ar.Run()

	waitForSteps(t, u, task, received, setUp)
	ar.Update(stopped(ar.Alloc()))
	waitExit(t, ar)
	waitForSteps(t, u, task, received, setUp, "complete - Received,Task Setup,Killed")
}

func TestRealistic_BatchRunFor(t *testing.T) {
	alloc := mock.BatchAlloc()
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	tg.Tasks[0].Config = map[string]any{"run_for": "50ms"}
	task := tg.Tasks[0].Name
	ar, u := realisticRunner(t, Timings{}, alloc, state.NewMemDB(testlog.HCLogger(t)))
	go ar.Run()

	waitExit(t, ar)
	waitForSteps(t, u, task, received, setUp, started, "complete - Received,Task Setup,Started,Terminated")

	u.mu.Lock()
	ts := u.updates[3].TaskStates[task]
	u.mu.Unlock()
	must.GreaterEq(t, 50*time.Millisecond, ts.FinishedAt.Sub(ts.StartedAt))
}

func TestRealistic_RestoreRunning(t *testing.T) {
	db := state.NewMemDB(testlog.HCLogger(t))
	alloc := deployedAlloc(0)
	task := alloc.Job.TaskGroups[0].Tasks[0].Name
	ar, u := realisticRunner(t, Timings{}, alloc, db)
	go ar.Run()
	waitForSteps(t, u, task, received, setUp, started, healthy)

	// The client shuts down and starts again: a new runner of the stored
	// allocation restores its state and reports nothing new.
	ar.Shutdown()
	waitExit(t, ar)
	before := ar.AllocState()

	restored, ru := realisticRunner(t, Timings{}, alloc, db)
	must.NoError(t, restored.Restore())
	after := restored.AllocState()
	must.Eq(t, structs.AllocClientStatusRunning, after.ClientStatus)
	must.Eq(t, before.TaskStates, after.TaskStates)
	must.Eq(t, before.DeploymentStatus, after.DeploymentStatus)

	go restored.Run()
	restored.Update(stopped(alloc))
	waitExit(t, restored)
	waitForSteps(t, ru, task, killing, killed)
}

func TestRealistic_RestoreMidway(t *testing.T) {
	db := state.NewMemDB(testlog.HCLogger(t))
	alloc := deployedAlloc(0)
	task := alloc.Job.TaskGroups[0].Tasks[0].Name

	// Shut down while the task is being set up: the restored runner starts
	// it and carries on.
	ar, u := realisticRunner(t, Timings{Start: time.Hour}, alloc, db)
	go ar.Run()
	waitForSteps(t, u, task, received, setUp)
	ar.Shutdown()
	waitExit(t, ar)

	restored, ru := realisticRunner(t, Timings{}, alloc, db)
	must.NoError(t, restored.Restore())
	must.Eq(t, structs.AllocClientStatusPending, restored.AllocState().ClientStatus)
	go restored.Run()
	waitForSteps(t, ru, task, started, healthy)

	restored.Destroy()
	waitExit(t, restored)
	_, ts, err := db.GetTaskRunnerState(alloc.ID, task)
	must.NoError(t, err)
	must.Nil(t, ts)
}

func TestRealistic_InPlaceUpdate(t *testing.T) {
	// An allocation updated in place into a new deployment decides its
	// health again.
	alloc := deployedAlloc(0)
	task := alloc.Job.TaskGroups[0].Tasks[0].Name
	ar, u := realisticRunner(t, Timings{}, alloc, state.NewMemDB(testlog.HCLogger(t)))
	go ar.Run()
	waitForSteps(t, u, task, received, setUp, started, healthy)

	first := ar.AllocState().DeploymentStatus.Timestamp
	next := ar.Alloc()
	next.DeploymentID = uuid.Generate()
	ar.Update(next)
	must.Wait(t, wait.InitialSuccess(
		wait.BoolFunc(func() bool {
			ds := ar.AllocState().DeploymentStatus
			return len(u.steps(task)) == 5 && ds.Healthy != nil && ds.Timestamp.After(first)
		}),
		wait.Timeout(5*time.Second),
		wait.Gap(5*time.Millisecond),
	), must.Func(func() string { return strings.Join(u.steps(task), "\n") }))
	must.Eq(t, healthy, u.steps(task)[4])

	ar.Destroy()
	waitExit(t, ar)
}

func TestRealistic_BadTimings(t *testing.T) {
	_, err := NewRealistic(Timings{Kill: -time.Second})
	must.Error(t, err)
}
