package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// The JSON shapes of Nomad's HTTP API the bench uses: only the fields it
// sends or reads. Durations are nanoseconds, as the API encodes them.

// Job is a job to register.
type Job struct {
	ID          string
	Name        string
	Type        string
	Datacenters []string
	// Periodic and ParameterizedJob make a periodic or a parameterized
	// job (the workloads periodic and dispatch).
	Periodic         *Periodic         `json:",omitempty"`
	ParameterizedJob *ParameterizedJob `json:",omitempty"`
	TaskGroups       []TaskGroup
}

// TaskGroup is a group of a job.
type TaskGroup struct {
	Name          string
	Count         int
	Update        *UpdateStrategy `json:",omitempty"`
	RestartPolicy *RestartPolicy  `json:",omitempty"`
	EphemeralDisk *EphemeralDisk  `json:",omitempty"`
	// MaxClientDisconnect keeps a disconnected client's allocations
	// (status unknown) for this long instead of replacing them as lost.
	MaxClientDisconnect *time.Duration `json:",omitempty"`
	// Migrate is the group's migrate block (node drains); Reschedule its
	// reschedule block.
	Migrate    *MigrateStrategy  `json:",omitempty"`
	Reschedule *ReschedulePolicy `json:"ReschedulePolicy,omitempty"`
	Tasks      []Task
}

// UpdateStrategy is a group's update block.
//
// Zero fields but MaxParallel are left out, so Nomad fills in its
// defaults: `update { max_parallel = 0 }` is UpdateStrategy{}.
type UpdateStrategy struct {
	MaxParallel      int
	HealthCheck      string        `json:",omitempty"`
	MinHealthyTime   time.Duration `json:",omitempty"`
	HealthyDeadline  time.Duration `json:",omitempty"`
	ProgressDeadline time.Duration `json:",omitempty"`
	AutoRevert       bool          `json:",omitempty"`
	Canary           int           `json:",omitempty"`
}

// RestartPolicy is a group's restart block.
type RestartPolicy struct {
	Attempts int
	Interval time.Duration
	Delay    time.Duration
	Mode     string
}

// EphemeralDisk is a group's ephemeral_disk block.
type EphemeralDisk struct {
	SizeMB int
}

// Task is a task of a group.
type Task struct {
	Name      string
	Driver    string
	Config    map[string]any
	Env       map[string]string `json:",omitempty"`
	Resources *Resources
	LogConfig *LogConfig `json:",omitempty"`
	// ShutdownDelay is how long the client waits between deciding to
	// kill the task and killing it (the task's shutdown_delay).
	ShutdownDelay time.Duration `json:",omitempty"`
}

// Resources are a task's resources.
type Resources struct {
	CPU      int
	MemoryMB int
}

// LogConfig is a task's logs block.
type LogConfig struct {
	MaxFiles      int
	MaxFileSizeMB int
}

// Deployment is the part of a deployment the bench reads.
type Deployment struct {
	ID                string
	JobVersion        uint64
	Status            string
	StatusDescription string
}

// Deployment statuses.
const (
	DeploymentRunning    = "running"
	DeploymentSuccessful = "successful"
)

// DeploymentStatus is the part of an allocation's deployment status the
// bench reads: Timestamp is when the client decided the health.
// TaskState is the part of a task's state the bench and the fault
// checker read.
type TaskState struct {
	State      string
	Failed     bool
	Restarts   uint64
	StartedAt  time.Time
	FinishedAt time.Time
	Events     []*TaskEvent
}

// TaskEvent is the part of a task event the fault checker reads.
type TaskEvent struct {
	Type string
	Time int64 // unix nanoseconds
}

// AllocDeploymentStatus is an allocation's health in its deployment.
type AllocDeploymentStatus struct {
	// Healthy is nil until the client has decided; Timestamp is when it
	// did (the client's clock).
	Healthy   *bool
	Timestamp time.Time
}

// AllocStub is the part of an allocation list entry the bench and the
// fault checker read.
type AllocStub struct {
	ID               string
	Name             string
	NodeID           string
	JobID            string
	EvalID           string
	JobVersion       uint64
	ClientStatus     string
	DesiredStatus    string
	DeploymentStatus *AllocDeploymentStatus
	TaskStates       map[string]*TaskState
	ModifyIndex      uint64
	// CreateTime and ModifyTime are unix nanoseconds of the servers'
	// clock: ModifyTime is when they last changed the allocation, for a
	// client's update the time the servers received it.
	CreateTime int64
	ModifyTime int64
	// NextAllocation is the allocation that replaced this one.
	NextAllocation string
}

// NodeStub is the part of a node list entry the bench reads.
type NodeStub struct {
	ID      string
	Name    string
	Status  string
	Drivers map[string]*DriverInfo
	// Drain is true while the node drains; SchedulingEligibility is
	// "eligible" or "ineligible".
	Drain                 bool
	SchedulingEligibility string
}

// DriverInfo is a node's view of a driver.
type DriverInfo struct {
	Detected bool
	Healthy  bool
}

// Client talks to one agent's HTTP API.
type Client struct {
	Addr string // http://127.0.0.1:port
	HTTP *http.Client
}

// NewClient returns a client for the agent at addr (host:port).
func NewClient(addr string) *Client {
	return &Client{Addr: "http://" + addr, HTTP: &http.Client{Timeout: 90 * time.Second}}
}

func (c *Client) do(ctx context.Context, method, path string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Addr+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out == nil {
		return resp.Header, nil
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = data
		return resp.Header, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("%s %s: decoding: %w", method, path, err)
	}
	return resp.Header, nil
}

// Leader returns the cluster's leader address, "" while there is none.
func (c *Client) Leader(ctx context.Context) (string, error) {
	var leader string
	_, err := c.do(ctx, http.MethodGet, "/v1/status/leader", nil, &leader)
	return leader, err
}

// Nodes lists the client nodes.
func (c *Client) Nodes(ctx context.Context) ([]NodeStub, error) {
	var nodes []NodeStub
	_, err := c.do(ctx, http.MethodGet, "/v1/nodes", nil, &nodes)
	return nodes, err
}

// Register registers (or updates) a job.
func (c *Client) Register(ctx context.Context, job *Job) error {
	_, err := c.do(ctx, http.MethodPost, "/v1/jobs", map[string]any{"Job": job}, nil)
	return err
}

// LatestDeployment returns the job's latest deployment (nil if none). With
// index > 0 it is a blocking query that returns once the deployment's
// index passes index or wait elapses; it returns the new index.
func (c *Client) LatestDeployment(ctx context.Context, jobID string, index uint64, wait time.Duration) (*Deployment, uint64, error) {
	q := url.Values{}
	if index > 0 {
		q.Set("index", strconv.FormatUint(index, 10))
		q.Set("wait", wait.String())
	}
	var d *Deployment
	h, err := c.do(ctx, http.MethodGet, "/v1/job/"+url.PathEscape(jobID)+"/deployment?"+q.Encode(), nil, &d)
	if err != nil {
		return nil, 0, err
	}
	next, _ := strconv.ParseUint(h.Get("X-Nomad-Index"), 10, 64)
	return d, next, nil
}

// Allocations lists every allocation of the job, of all versions.
func (c *Client) Allocations(ctx context.Context, jobID string) ([]AllocStub, error) {
	var allocs []AllocStub
	_, err := c.do(ctx, http.MethodGet, "/v1/job/"+url.PathEscape(jobID)+"/allocations?all=true", nil, &allocs)
	return allocs, err
}

// RestartAlloc asks a client agent to restart the allocation's running
// tasks; the agent that runs the allocation does it itself, without the
// servers.
func (c *Client) RestartAlloc(ctx context.Context, allocID string) error {
	_, err := c.do(ctx, http.MethodPut, "/v1/client/allocation/"+url.PathEscape(allocID)+"/restart", map[string]any{}, nil)
	return err
}

// Metrics scrapes the agent's cumulative metrics in Prometheus form.
func (c *Client) Metrics(ctx context.Context) (Metrics, error) {
	var raw []byte
	if _, err := c.do(ctx, http.MethodGet, "/v1/metrics?format=prometheus", nil, &raw); err != nil {
		return nil, err
	}
	return ParseMetrics(bytes.NewReader(raw))
}

// BenchJob is the scenario's service job: count mock tasks that run for
// an hour, small resources, and an update block with max_parallel 50,
// min_healthy_time 2s and task-state health checks. version is set in an
// environment variable, so changing it is a destructive (rolling) update.
func BenchJob(id string, count int, version int) *Job {
	return ServiceJob(id, count, version, 50)
}

// ServiceJob is BenchJob with maxParallel allocations replaced at a time.
func ServiceJob(id string, count, version, maxParallel int) *Job {
	return &Job{
		ID:          id,
		Name:        id,
		Type:        "service",
		Datacenters: []string{"dc1"},
		TaskGroups: []TaskGroup{{
			Name:  "mock",
			Count: count,
			Update: &UpdateStrategy{
				MaxParallel:      maxParallel,
				HealthCheck:      "task_states",
				MinHealthyTime:   2 * time.Second,
				HealthyDeadline:  5 * time.Minute,
				ProgressDeadline: 10 * time.Minute,
			},
			RestartPolicy: &RestartPolicy{Attempts: 2, Interval: 30 * time.Minute, Delay: 15 * time.Second, Mode: "fail"},
			EphemeralDisk: &EphemeralDisk{SizeMB: 10},
			Tasks: []Task{{
				Name:      "task",
				Driver:    "mock_driver",
				Config:    map[string]any{"run_for": "1h"},
				Env:       map[string]string{"BENCH_JOB_VERSION": strconv.Itoa(version)},
				Resources: &Resources{CPU: 10, MemoryMB: 10},
				LogConfig: &LogConfig{MaxFiles: 1, MaxFileSizeMB: 1},
			}},
		}},
	}
}

// SnapshotSave saves the servers' Raft state through the API (`nomad
// operator snapshot save`): the agent forwards the request to the leader
// and returns the snapshot archive.
func (c *Client) SnapshotSave(ctx context.Context) ([]byte, error) {
	var snap []byte
	if _, err := c.do(ctx, http.MethodGet, "/v1/operator/snapshot", nil, &snap); err != nil {
		return nil, fmt.Errorf("saving a snapshot: %w", err)
	}
	if len(snap) == 0 {
		return nil, fmt.Errorf("saving a snapshot: empty answer")
	}
	return snap, nil
}

// SnapshotRestore restores a snapshot SnapshotSave returned (`nomad
// operator snapshot restore`): the leader replaces its state with it and
// reasserts leadership.
func (c *Client) SnapshotRestore(ctx context.Context, snap []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, c.Addr+"/v1/operator/snapshot", bytes.NewReader(snap))
	if err != nil {
		return err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("restoring a snapshot: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("restoring a snapshot: %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	return nil
}

// GarbageCollect runs the servers' garbage collection at once (`nomad
// system gc`): terminal evaluations, allocations, deployments and jobs
// are collected whatever their age.
func (c *Client) GarbageCollect(ctx context.Context) error {
	if _, err := c.do(ctx, http.MethodPut, "/v1/system/gc", nil, nil); err != nil {
		return fmt.Errorf("system gc: %w", err)
	}
	return nil
}
