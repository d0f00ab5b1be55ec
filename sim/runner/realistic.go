package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/client/allocrunner/interfaces"
	"github.com/hashicorp/nomad/client/config"
	"github.com/hashicorp/nomad/nomad/structs"
)

// Timings are the delays of a realistic AllocRunner between the steps a
// mock_driver task goes through in the real alloc runner.
type Timings struct {
	// Setup is the time from the task received to its task directory
	// built ("Task Setup").
	Setup time.Duration

	// Start is the time from the task set up to the task started (the
	// real client starts a logmon process and the driver's task).
	Start time.Duration

	// Kill is the time from the task killing to the task killed.
	Kill time.Duration
}

// DefaultTimings are the delays of a realistic AllocRunner unless others are
// configured: the order of magnitude of a mock_driver task on an idle
// machine, not a measurement.
var DefaultTimings = Timings{
	Setup: 10 * time.Millisecond,
	Start: 250 * time.Millisecond,
	Kill:  50 * time.Millisecond,
}

// Validate checks that no delay is negative.
func (t Timings) Validate() error {
	if t.Setup < 0 || t.Start < 0 || t.Kill < 0 {
		return fmt.Errorf("negative delay in %+v", t)
	}
	return nil
}

// NewRealistic returns a config.AllocRunnerFactory of realistic
// AllocRunners: they report the same sequence of allocation updates as the
// real alloc runner running mock_driver tasks, with the given delays, and
// keep their state in the client's state database so a restarted client
// restores them.
//
// The sequence of a service allocation is: pending with the tasks received;
// pending with the tasks set up (after Setup); running with the tasks
// started (after Start); healthy in its deployment, if it has one and its
// group's update block checks task states, after the group's
// min_healthy_time; and, once the servers stop it, running with the tasks
// being killed, then complete with the tasks terminated and killed (after
// Kill). Tasks of batch and sysbatch jobs exit by themselves after their
// mock_driver run_for, and the allocation completes.
func NewRealistic(timings Timings) (config.AllocRunnerFactory, error) {
	if err := timings.Validate(); err != nil {
		return nil, err
	}
	return func(conf *config.AllocRunnerConfig) (interfaces.AllocRunner, error) {
		ar, err := newAllocRunner(conf)
		if err != nil {
			return nil, err
		}
		t := timings
		ar.timings = &t
		ar.maxKillTimeout = conf.ClientConfig.MaxKillTimeout
		return ar, nil
	}, nil
}

// runRealistic runs the allocation through the steps of a mock_driver task
// until it is complete, or the runner is destroyed or shut down.
func (ar *AllocRunner) runRealistic() {
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C

	for {
		wait, done := ar.advance(time.Now())
		if done {
			return
		}
		var timerCh <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			timerCh = timer.C
		}

		select {
		case <-timerCh:
			continue
		case <-ar.updateCh:
		case <-ar.destroyCh:
			return
		case <-ar.shutdownCh:
			return
		}
		if timerCh != nil && !timer.Stop() {
			<-timer.C
		}
	}
}

// advance takes every step of the allocation that is due at now, persists
// and reports each, and returns how long until the next one is due (-1 if
// it waits for the servers), or done once the allocation is complete.
func (ar *AllocRunner) advance(now time.Time) (wait time.Duration, done bool) {
	for {
		ar.mu.Lock()
		update, wait, done := ar.stepLocked(now)
		var err error
		if update != nil {
			err = ar.persistLocked()
		}
		ar.mu.Unlock()

		if err != nil {
			ar.logger.Error("failed to persist allocation state", "error", err)
		}
		if update == nil {
			return wait, done
		}
		ar.report(update)
		if done {
			return 0, true
		}
	}
}

// Steps of a task, from its events.
const (
	stepNew = iota
	stepReceived
	stepSetup
	stepStarted
	stepKilling
	stepDead
)

// taskStep returns the step a task state is at and the time it got there.
func taskStep(ts *structs.TaskState) (int, time.Time) {
	if ts == nil || len(ts.Events) == 0 {
		return stepNew, time.Time{}
	}
	if ts.State == structs.TaskStateDead {
		return stepDead, ts.FinishedAt
	}
	for i := len(ts.Events) - 1; i >= 0; i-- {
		e := ts.Events[i]
		at := time.Unix(0, e.Time)
		switch e.Type {
		case structs.TaskKilling:
			return stepKilling, at
		case structs.TaskStarted:
			return stepStarted, ts.StartedAt
		case structs.TaskSetup:
			return stepSetup, at
		case structs.TaskReceived:
			return stepReceived, at
		}
	}
	return stepReceived, time.Time{}
}

// stepLocked takes the next step of the allocation if it is due at now and
// returns the update to report, or how long until it is due (-1: it waits
// for the servers). done is true once the allocation is client terminal.
// All tasks of the group take the same steps together; the first task's
// state tells the step. The lock must be held.
func (ar *AllocRunner) stepLocked(now time.Time) (update *structs.Allocation, wait time.Duration, done bool) {
	alloc := ar.alloc
	if isClientTerminal(ar.state.ClientStatus) {
		return nil, 0, true
	}
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	step, since := taskStep(ar.state.TaskStates[tg.Tasks[0].Name])
	t := ar.timings
	due := func(d time.Duration) (time.Duration, bool) {
		left := since.Add(d).Sub(now)
		return left, left <= 0
	}

	if alloc.ServerTerminalStatus() {
		switch step {
		case stepNew, stepReceived, stepSetup:
			// Nothing runs yet: the tasks are killed at once.
			return ar.stepTasksLocked(now, structs.AllocClientStatusComplete, structs.TaskStateDead,
				structs.NewTaskEvent(structs.TaskKilled)), 0, true
		case stepStarted:
			return ar.stepTasksLocked(now, structs.AllocClientStatusRunning, structs.TaskStateRunning,
				structs.NewTaskEvent(structs.TaskKilling).SetKillTimeout(tg.Tasks[0].KillTimeout, ar.maxKillTimeout)), 0, false
		case stepKilling:
			if left, ok := due(t.Kill); !ok {
				return nil, left, false
			}
			return ar.stepTasksLocked(now, structs.AllocClientStatusComplete, structs.TaskStateDead,
				structs.NewTaskEvent(structs.TaskTerminated).SetExitCode(0),
				structs.NewTaskEvent(structs.TaskKilled)), 0, true
		}
		return nil, 0, true
	}

	switch step {
	case stepNew:
		return ar.stepTasksLocked(now, structs.AllocClientStatusPending, structs.TaskStatePending,
			structs.NewTaskEvent(structs.TaskReceived)), 0, false
	case stepReceived:
		if left, ok := due(t.Setup); !ok {
			return nil, left, false
		}
		return ar.stepTasksLocked(now, structs.AllocClientStatusPending, structs.TaskStatePending,
			structs.NewTaskEvent(structs.TaskSetup).SetMessage(structs.TaskBuildingTaskDir)), 0, false
	case stepSetup:
		if left, ok := due(t.Start); !ok {
			return nil, left, false
		}
		return ar.stepTasksLocked(now, structs.AllocClientStatusRunning, structs.TaskStateRunning,
			structs.NewTaskEvent(structs.TaskStarted)), 0, false
	case stepStarted:
		if isBatch(alloc.Job) {
			if left, ok := due(runFor(tg.Tasks[0])); !ok {
				return nil, left, false
			}
			return ar.stepTasksLocked(now, structs.AllocClientStatusComplete, structs.TaskStateDead,
				structs.NewTaskEvent(structs.TaskTerminated).SetExitCode(0)), 0, true
		}
		minHealthy, ok := ar.checksHealthLocked(alloc.Job, tg)
		if !ok {
			return nil, -1, false
		}
		healthSince := since
		if ar.healthSince.After(healthSince) {
			healthSince = ar.healthSince
		}
		if left := healthSince.Add(minHealthy).Sub(now); left > 0 {
			return nil, left, false
		}
		ar.state.SetDeploymentStatus(now, true)
		return ar.clientAllocLocked(), 0, false
	}
	// Killing while the servers want it running: a stop the servers took
	// back cannot happen; wait for them.
	return nil, -1, false
}

// stepTasksLocked moves every task of the group to taskState with the events,
// the allocation to clientStatus, and returns the allocation update for the
// client. The lock must be held.
func (ar *AllocRunner) stepTasksLocked(now time.Time, clientStatus, taskState string, events ...*structs.TaskEvent) *structs.Allocation {
	ar.moveTasksLocked(now, taskState, events...)
	ar.state.ClientStatus, ar.state.ClientDescription = clientStatusOf(ar.state.TaskStates)
	return ar.clientAllocLocked()
}

// moveTasksLocked moves every task of the group to taskState, appending
// the events at now. The lock must be held.
func (ar *AllocRunner) moveTasksLocked(now time.Time, taskState string, events ...*structs.TaskEvent) {
	tg := ar.alloc.Job.LookupTaskGroup(ar.alloc.TaskGroup)
	for _, task := range tg.Tasks {
		ts, ok := ar.state.TaskStates[task.Name]
		if !ok {
			ts = structs.NewTaskState()
			ar.state.TaskStates[task.Name] = ts
		}
		ts.State = taskState
		for _, e := range events {
			e := e.Copy()
			e.Time = now.UnixNano()
			e.PopulateEventDisplayMessage()
			ts.Events = append(ts.Events, e)
		}
		switch taskState {
		case structs.TaskStateRunning:
			if ts.StartedAt.IsZero() {
				ts.StartedAt = now
			}
		case structs.TaskStateDead:
			ts.FinishedAt = now
		}
	}
}

// deploymentChangedLocked notes an allocation joining another deployment
// while it runs (an in-place update): as the real health watcher does, it
// forgets the health it reported and decides it again. The lock must be
// held.
func (ar *AllocRunner) deploymentChangedLocked(prev, next *structs.Allocation) {
	if next.DeploymentID == "" || next.DeploymentID == prev.DeploymentID {
		return
	}
	ar.state.ClearDeploymentStatus()
	ar.healthSince = time.Now()
}

// checksHealthLocked returns whether the runner sets the deployment health of
// its allocation and has not yet, and after how long running: as the real
// health watcher (allocHealthWatcherHook) does, for a service job only; in a
// deployment, when its group's update block checks task states or checks (a
// mock task has no checks), after its min_healthy_time; outside one (a
// migration, such as a drain's replacement), with the group's migrate block,
// or the default one. The lock must be held.
func (ar *AllocRunner) checksHealthLocked(job *structs.Job, tg *structs.TaskGroup) (time.Duration, bool) {
	if job == nil || job.Type != structs.JobTypeService {
		return 0, false
	}
	var minHealthy time.Duration
	if ar.alloc.DeploymentID != "" {
		if tg.Update == nil {
			return 0, false
		}
		switch tg.Update.HealthCheck {
		case structs.UpdateStrategyHealthCheck_TaskStates, structs.UpdateStrategyHealthCheck_Checks:
		default:
			return 0, false
		}
		minHealthy = tg.Update.MinHealthyTime
	} else {
		migrate := tg.Migrate
		if migrate == nil {
			migrate = structs.DefaultMigrateStrategy()
		}
		minHealthy = migrate.MinHealthyTime
	}
	ds := ar.state.DeploymentStatus
	return minHealthy, ds == nil || ds.Healthy == nil
}

// runFor returns the mock_driver run_for of a task, 0 if it has none.
func runFor(task *structs.Task) time.Duration {
	s, ok := task.Config["run_for"].(string)
	if !ok {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return d
}

// persistLocked stores the task states and deployment status of the
// allocation in the client's state database, as the real alloc runner does.
// The lock must be held.
func (ar *AllocRunner) persistLocked() error {
	var errs []error
	for name, ts := range ar.state.TaskStates {
		if err := ar.stateDB.PutTaskState(ar.allocID, name, ts); err != nil {
			errs = append(errs, fmt.Errorf("task %s: %w", name, err))
		}
	}
	if ds := ar.state.DeploymentStatus; ds != nil {
		if err := ar.stateDB.PutDeploymentStatus(ar.allocID, ds); err != nil {
			errs = append(errs, fmt.Errorf("deployment status: %w", err))
		}
	}
	return errors.Join(errs...)
}

// restoreRealistic reads the task states and deployment status of the
// allocation from the client's state database, and its client status from
// the task states.
func (ar *AllocRunner) restoreRealistic() error {
	ar.mu.Lock()
	defer ar.mu.Unlock()

	tg := ar.alloc.Job.LookupTaskGroup(ar.alloc.TaskGroup)
	for _, task := range tg.Tasks {
		_, ts, err := ar.stateDB.GetTaskRunnerState(ar.allocID, task.Name)
		if err != nil {
			return fmt.Errorf("failed to read the state of task %s: %w", task.Name, err)
		}
		if ts != nil {
			ar.state.TaskStates[task.Name] = ts
		}
	}
	ds, err := ar.stateDB.GetDeploymentStatus(ar.allocID)
	if err != nil {
		return fmt.Errorf("failed to read the deployment status: %w", err)
	}
	if ds != nil {
		ar.state.DeploymentStatus = ds
	}
	ar.state.ClientStatus, ar.state.ClientDescription = clientStatusOf(ar.state.TaskStates)
	return nil
}

// persistRealistic stores the allocation's state.
func (ar *AllocRunner) persistRealistic() error {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.persistLocked()
}

// clientStatusOf returns the client status that task states make, by the
// real alloc runner's rule: a failed task fails the allocation, a running
// one makes it running, all dead make it complete, else it is pending.
func clientStatusOf(states map[string]*structs.TaskState) (string, string) {
	var pending, running, dead, failed bool
	for _, ts := range states {
		switch ts.State {
		case structs.TaskStateRunning:
			running = true
		case structs.TaskStatePending:
			pending = true
		case structs.TaskStateDead:
			if ts.Failed {
				failed = true
			} else {
				dead = true
			}
		}
	}
	switch {
	case failed:
		return structs.AllocClientStatusFailed, "Failed tasks"
	case running:
		return structs.AllocClientStatusRunning, "Tasks are running"
	case pending:
		return structs.AllocClientStatusPending, "No tasks have started"
	case dead:
		return structs.AllocClientStatusComplete, "All tasks have completed"
	}
	return structs.AllocClientStatusPending, "No tasks have started"
}
