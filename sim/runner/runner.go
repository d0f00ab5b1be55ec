// Package runner implements a Nomad AllocRunner that runs no tasks, for
// simulating client nodes with the real client code.
//
// It only depends on the AllocRunner interface and its configuration
// (client/allocrunner/interfaces and client/config), not on the client or the
// real alloc runner.
package runner

import (
	"errors"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/client/allocdir"
	"github.com/hashicorp/nomad/client/allocrunner/interfaces"
	arstate "github.com/hashicorp/nomad/client/allocrunner/state"
	"github.com/hashicorp/nomad/client/config"
	cinterfaces "github.com/hashicorp/nomad/client/interfaces"
	"github.com/hashicorp/nomad/client/pluginmanager/drivermanager"
	cstate "github.com/hashicorp/nomad/client/state"
	cstructs "github.com/hashicorp/nomad/client/structs"
	"github.com/hashicorp/nomad/nomad/structs"
	"github.com/hashicorp/nomad/plugins/drivers"
)

// ClientDescription is the client description of simulated allocations.
const ClientDescription = "Tasks are simulated"

// ErrNoDrivers is returned for requests that need a task driver.
var ErrNoDrivers = errors.New("simulated allocations have no task drivers")

// AllocRunner is an interfaces.AllocRunner that runs no tasks. Built by New
// (instant mode), it reports the tasks of its allocation running, and healthy
// to deployments, until the servers stop the allocation; allocations of batch
// and sysbatch jobs complete as soon as they are running. Instant allocations
// are not restored when a client restarts; the servers send them to the client
// again.
//
// Built by a factory of NewRealistic (realistic mode), it reports the
// sequence of updates of a mock_driver task instead, and restores its state
// (see realistic.go).
type AllocRunner struct {
	logger       hclog.Logger
	allocID      string
	allocDir     *allocdir.AllocDir
	stateDB      cstate.StateDB
	stateUpdater cinterfaces.AllocStateHandler
	broadcaster  *cstructs.AllocBroadcaster

	// updateCh wakes Run when the allocation was updated.
	updateCh chan struct{}

	// waitCh is closed when Run exits.
	waitCh chan struct{}

	// destroyCh is closed when the runner is destroyed.
	destroyCh chan struct{}

	// shutdownCh is closed when the runner is shut down.
	shutdownCh chan struct{}

	// mu guards the fields below.
	mu        sync.Mutex
	alloc     *structs.Allocation
	state     *arstate.State
	destroyed bool
	shutdown  bool

	// timings are the delays of realistic mode, nil in instant mode.
	timings *Timings

	// maxKillTimeout is the client's max_kill_timeout (realistic mode).
	maxKillTimeout time.Duration

	// healthSince is when the allocation joined its current deployment
	// while its tasks ran: its health is decided min_healthy_time after the
	// later of that and its tasks' start (realistic mode). Guarded by mu.
	healthSince time.Time
}

var _ config.AllocRunnerFactory = New

// New returns an AllocRunner for the configured allocation. It is a
// config.AllocRunnerFactory.
func New(conf *config.AllocRunnerConfig) (interfaces.AllocRunner, error) {
	return newAllocRunner(conf)
}

// newAllocRunner returns an instant AllocRunner for the configured
// allocation.
func newAllocRunner(conf *config.AllocRunnerConfig) (*AllocRunner, error) {
	alloc := conf.Alloc
	if alloc.Job == nil || alloc.Job.LookupTaskGroup(alloc.TaskGroup) == nil {
		return nil, errors.New("allocation has no task group")
	}

	logger := conf.Logger.Named("sim_alloc_runner").With("alloc_id", alloc.ID)
	ar := &AllocRunner{
		logger:       logger,
		allocID:      alloc.ID,
		allocDir:     allocdir.NewAllocDir(logger, conf.ClientConfig.AllocDir, alloc.ID),
		stateDB:      conf.StateDB,
		stateUpdater: conf.StateUpdater,
		broadcaster:  cstructs.NewAllocBroadcaster(logger),
		updateCh:     make(chan struct{}, 1),
		waitCh:       make(chan struct{}),
		destroyCh:    make(chan struct{}),
		shutdownCh:   make(chan struct{}),
		alloc:        alloc,
		state: &arstate.State{
			ClientStatus:      alloc.ClientStatus,
			ClientDescription: alloc.ClientDescription,
			DeploymentStatus:  alloc.DeploymentStatus.Copy(),
			TaskStates:        make(map[string]*structs.TaskState),
		},
	}
	for name, ts := range alloc.TaskStates {
		ar.state.TaskStates[name] = ts.Copy()
	}
	return ar, nil
}

// Run simulates the allocation until it is complete, or the runner is
// destroyed or shut down.
func (ar *AllocRunner) Run() {
	defer close(ar.waitCh)

	if ar.timings != nil {
		ar.runRealistic()
		return
	}

	for {
		if ar.step() {
			return
		}

		select {
		case <-ar.updateCh:
		case <-ar.destroyCh:
			return
		case <-ar.shutdownCh:
			return
		}
	}
}

// step moves the allocation towards the state the servers want and reports
// changes. It returns true once the allocation is client terminal.
func (ar *AllocRunner) step() bool {
	ar.mu.Lock()
	alloc := ar.alloc
	status := ar.state.ClientStatus

	switch {
	case isClientTerminal(status):
		ar.mu.Unlock()
		return true

	case alloc.ServerTerminalStatus():
		update := ar.setTasksLocked(structs.AllocClientStatusComplete,
			structs.TaskStateDead, structs.NewTaskEvent(structs.TaskKilled))
		ar.mu.Unlock()
		ar.report(update)
		return true

	case status == structs.AllocClientStatusRunning:
		ar.mu.Unlock()
		return false
	}

	update := ar.setTasksLocked(structs.AllocClientStatusRunning,
		structs.TaskStateRunning, structs.NewTaskEvent(structs.TaskStarted))
	ar.mu.Unlock()
	ar.report(update)

	if !isBatch(alloc.Job) {
		return false
	}

	ar.mu.Lock()
	update = ar.setTasksLocked(structs.AllocClientStatusComplete,
		structs.TaskStateDead, structs.NewTaskEvent(structs.TaskTerminated).SetExitCode(0))
	ar.mu.Unlock()
	ar.report(update)
	return true
}

// setTasksLocked sets the client status of the allocation and the state of
// all its tasks, and returns the allocation update for the client. The lock
// must be held.
func (ar *AllocRunner) setTasksLocked(clientStatus, taskState string, event *structs.TaskEvent) *structs.Allocation {
	now := time.Now()
	ar.moveTasksLocked(now, taskState, event)

	ar.state.ClientStatus = clientStatus
	ar.state.ClientDescription = ClientDescription
	if ar.alloc.DeploymentID != "" && clientStatus == structs.AllocClientStatusRunning {
		ar.state.SetDeploymentStatus(now, true)
	}

	return ar.clientAllocLocked()
}

// clientAllocLocked returns the client-settable fields of the allocation.
// The lock must be held.
func (ar *AllocRunner) clientAllocLocked() *structs.Allocation {
	s := ar.state.Copy()
	return &structs.Allocation{
		ID:                ar.allocID,
		ClientStatus:      s.ClientStatus,
		ClientDescription: s.ClientDescription,
		DeploymentStatus:  s.DeploymentStatus,
		TaskStates:        s.TaskStates,
		NetworkStatus:     s.NetworkStatus,
	}
}

// report sends an allocation update to the client, which forwards it to the
// servers, and to the runner's listeners.
func (ar *AllocRunner) report(update *structs.Allocation) {
	ar.logger.Trace("reporting allocation", "client_status", update.ClientStatus)
	ar.stateUpdater.AllocStateUpdated(update)
	if err := ar.broadcaster.Send(update); err != nil {
		ar.logger.Trace("not broadcasting allocation update", "error", err)
	}
}

// Alloc returns the allocation with the client status of the runner.
func (ar *AllocRunner) Alloc() *structs.Allocation {
	ar.mu.Lock()
	defer ar.mu.Unlock()

	alloc := ar.alloc.Copy()
	s := ar.state.Copy()
	alloc.ClientStatus = s.ClientStatus
	alloc.ClientDescription = s.ClientDescription
	alloc.DeploymentStatus = s.DeploymentStatus
	alloc.TaskStates = s.TaskStates
	return alloc
}

// AllocState returns a copy of the runner's state.
func (ar *AllocRunner) AllocState() *arstate.State {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.state.Copy()
}

// SetClientStatus overrides the client status of the allocation.
func (ar *AllocRunner) SetClientStatus(clientStatus string) {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	ar.state.ClientStatus = clientStatus
}

// Update stores the servers' version of the allocation and wakes Run.
func (ar *AllocRunner) Update(alloc *structs.Allocation) {
	ar.mu.Lock()
	if ar.timings != nil {
		ar.deploymentChangedLocked(ar.alloc, alloc)
	}
	ar.alloc = alloc
	ar.mu.Unlock()

	select {
	case ar.updateCh <- struct{}{}:
	default:
	}
}

// Reconnect stores the servers' version of the allocation and reports the
// runner's state to the servers.
func (ar *AllocRunner) Reconnect(alloc *structs.Allocation) error {
	ar.mu.Lock()
	ar.alloc = alloc
	update := ar.clientAllocLocked()
	ar.mu.Unlock()

	ar.report(update)
	return nil
}

// Restore reads the allocation's state from the client's state database in
// realistic mode; it is a no-op in instant mode, which keeps no local state.
func (ar *AllocRunner) Restore() error {
	if ar.timings == nil {
		return nil
	}
	return ar.restoreRealistic()
}

// PersistState stores the allocation's state in the client's state database
// in realistic mode; it is a no-op in instant mode.
func (ar *AllocRunner) PersistState() error {
	if ar.timings == nil {
		return nil
	}
	return ar.persistRealistic()
}

// Destroy stops the runner and removes the allocation from the client's
// state database.
func (ar *AllocRunner) Destroy() {
	ar.mu.Lock()
	defer ar.mu.Unlock()

	if ar.destroyed {
		return
	}
	if err := ar.stateDB.DeleteAllocationBucket(ar.allocID); err != nil {
		ar.logger.Warn("failed to delete allocation state", "error", err)
	}
	ar.broadcaster.Close()
	ar.destroyed = true
	close(ar.destroyCh)
}

// Shutdown stops the runner.
func (ar *AllocRunner) Shutdown() {
	ar.mu.Lock()
	defer ar.mu.Unlock()

	if ar.shutdown {
		return
	}
	ar.shutdown = true
	close(ar.shutdownCh)
}

// IsDestroyed returns true once the runner is destroyed.
func (ar *AllocRunner) IsDestroyed() bool {
	ar.mu.Lock()
	defer ar.mu.Unlock()
	return ar.destroyed
}

// IsMigrating returns false: simulated allocations have no data to migrate.
func (ar *AllocRunner) IsMigrating() bool { return false }

// IsWaiting returns false: simulated allocations do not wait for previous
// allocations.
func (ar *AllocRunner) IsWaiting() bool { return false }

// WaitCh is closed when Run exits.
func (ar *AllocRunner) WaitCh() <-chan struct{} { return ar.waitCh }

// DestroyCh is closed when the runner is destroyed.
func (ar *AllocRunner) DestroyCh() <-chan struct{} { return ar.destroyCh }

// ShutdownCh is closed when the runner is shut down.
func (ar *AllocRunner) ShutdownCh() <-chan struct{} { return ar.shutdownCh }

// GetAllocDir returns the allocation directory, which is never built.
func (ar *AllocRunner) GetAllocDir() *allocdir.AllocDir { return ar.allocDir }

// Listener returns a listener for the allocation updates of the runner.
func (ar *AllocRunner) Listener() *cstructs.AllocListener { return ar.broadcaster.Listen() }

// StatsReporter returns a reporter of zero resource usage.
func (ar *AllocRunner) StatsReporter() interfaces.AllocStatsReporter { return ar }

// LatestAllocStats returns zero resource usage for the allocation's tasks.
func (ar *AllocRunner) LatestAllocStats(taskFilter string) (*cstructs.AllocResourceUsage, error) {
	alloc := ar.Alloc()
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	now := time.Now().UnixNano()

	usage := &cstructs.AllocResourceUsage{
		ResourceUsage: zeroUsage(),
		Tasks:         make(map[string]*cstructs.TaskResourceUsage, len(tg.Tasks)),
		Timestamp:     now,
	}
	for _, task := range tg.Tasks {
		if taskFilter != "" && taskFilter != task.Name {
			continue
		}
		usage.Tasks[task.Name] = &cstructs.TaskResourceUsage{
			ResourceUsage: zeroUsage(),
			Timestamp:     now,
		}
	}
	return usage, nil
}

// Signal accepts and ignores signals.
func (ar *AllocRunner) Signal(taskName, signal string) error { return nil }

// RestartTask accepts and ignores restarts.
func (ar *AllocRunner) RestartTask(taskName string, taskEvent *structs.TaskEvent) error { return nil }

// RestartRunning accepts and ignores restarts.
func (ar *AllocRunner) RestartRunning(taskEvent *structs.TaskEvent) error { return nil }

// RestartAll accepts and ignores restarts.
func (ar *AllocRunner) RestartAll(taskEvent *structs.TaskEvent) error { return nil }

// GetTaskEventHandler returns nil: simulated tasks receive no driver events.
func (ar *AllocRunner) GetTaskEventHandler(taskName string) drivermanager.EventHandler {
	return nil
}

// GetTaskExecHandler returns nil: simulated tasks cannot be exec'd into.
func (ar *AllocRunner) GetTaskExecHandler(taskName string) drivermanager.TaskExecHandler {
	return nil
}

// GetTaskDriverCapabilities returns ErrNoDrivers.
func (ar *AllocRunner) GetTaskDriverCapabilities(taskName string) (*drivers.Capabilities, error) {
	return nil, ErrNoDrivers
}

func zeroUsage() *cstructs.ResourceUsage {
	return &cstructs.ResourceUsage{
		MemoryStats: &cstructs.MemoryStats{},
		CpuStats:    &cstructs.CpuStats{},
	}
}

func isClientTerminal(clientStatus string) bool {
	switch clientStatus {
	case structs.AllocClientStatusComplete,
		structs.AllocClientStatusFailed,
		structs.AllocClientStatusLost:
		return true
	}
	return false
}

func isBatch(job *structs.Job) bool {
	return job.Type == structs.JobTypeBatch || job.Type == structs.JobTypeSysBatch
}
