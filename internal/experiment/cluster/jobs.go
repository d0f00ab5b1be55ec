package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Periodic is a job's periodic block.
type Periodic struct {
	Enabled         bool
	SpecType        string
	Spec            string
	ProhibitOverlap bool
}

// ParameterizedJob is a job's parameterized block.
type ParameterizedJob struct {
	Payload string
}

// MigrateStrategy is a group's migrate block.
type MigrateStrategy struct {
	MaxParallel     int
	HealthCheck     string
	MinHealthyTime  time.Duration
	HealthyDeadline time.Duration
}

// ReschedulePolicy is a group's reschedule block.
type ReschedulePolicy struct {
	Attempts      int
	Interval      time.Duration
	Delay         time.Duration
	DelayFunction string
	Unlimited     bool
}

// JobStub is the part of a job list entry the bench reads.
type JobStub struct {
	ID       string
	ParentID string
	Status   string
}

// FreeCPU is the node's CPU (MHz) the scheduler can place allocations on.
func (n *Node) FreeCPU() int64 {
	var cpu int64
	if n.NodeResources != nil {
		cpu = n.NodeResources.Cpu.CpuShares
	}
	if n.ReservedResources != nil {
		cpu -= n.ReservedResources.Cpu.CpuShares
	}
	return cpu
}

// Jobs lists the jobs whose ID starts with prefix ("" for all).
func (c *Client) Jobs(ctx context.Context, prefix string) ([]JobStub, error) {
	var jobs []JobStub
	_, err := c.do(ctx, http.MethodGet, "/v1/jobs?prefix="+url.QueryEscape(prefix), nil, &jobs)
	return jobs, err
}

// Deregister stops a job; with purge the servers also forget it.
func (c *Client) Deregister(ctx context.Context, jobID string, purge bool) error {
	_, err := c.do(ctx, http.MethodDelete, "/v1/job/"+url.PathEscape(jobID)+"?purge="+strconv.FormatBool(purge), nil, nil)
	return err
}

// Dispatch dispatches a parameterized job and returns the child job's ID.
func (c *Client) Dispatch(ctx context.Context, jobID string) (string, error) {
	var resp struct{ DispatchedJobID string }
	_, err := c.do(ctx, http.MethodPost, "/v1/job/"+url.PathEscape(jobID)+"/dispatch", map[string]any{"JobID": jobID}, &resp)
	if err == nil && resp.DispatchedJobID == "" {
		err = fmt.Errorf("dispatching %s: no job ID in the answer", jobID)
	}
	return resp.DispatchedJobID, err
}

// Drain starts draining a node (deadline: then its remaining allocations
// are stopped); Undrain stops a drain and makes the node eligible again.
func (c *Client) Drain(ctx context.Context, nodeID string, deadline time.Duration) error {
	body := map[string]any{"NodeID": nodeID, "DrainSpec": map[string]any{"Deadline": deadline}}
	_, err := c.do(ctx, http.MethodPost, "/v1/node/"+url.PathEscape(nodeID)+"/drain", body, nil)
	return err
}

// Undrain ends a node's drain, if any, and marks it eligible.
func (c *Client) Undrain(ctx context.Context, nodeID string) error {
	body := map[string]any{"NodeID": nodeID, "MarkEligible": true}
	_, err := c.do(ctx, http.MethodPost, "/v1/node/"+url.PathEscape(nodeID)+"/drain", body, nil)
	return err
}

// GC runs the servers' garbage collection of terminal objects.
func (c *Client) GC(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPut, "/v1/system/gc", nil, nil)
	return err
}

// Event is one event of the event stream: Payload holds an Allocation or
// an Evaluation, by Topic.
type Event struct {
	Topic   string
	Type    string
	Key     string
	Index   uint64
	Payload struct {
		Allocation *AllocStub
		Evaluation *Evaluation
	}
}

// Evaluation is the part of an evaluation the bench reads.
type Evaluation struct {
	ID          string
	JobID       string
	Status      string
	TriggeredBy string
}

// Events streams the servers' allocation and evaluation events from index
// on, calling f for each, until ctx ends or the stream fails. The agent
// holds the stream open; heartbeats ({}) are skipped.
func (c *Client) Events(ctx context.Context, index uint64, f func(Event)) error {
	q := url.Values{"topic": {"Allocation:*", "Evaluation:*"}, "index": {strconv.FormatUint(index, 10)}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Addr+"/v1/event/stream?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	// The stream is long-lived: no client timeout, ctx ends it.
	resp, err := (&http.Client{Transport: c.HTTP.Transport}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET /v1/event/stream: %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var batch struct {
			Index  uint64
			Events []Event
		}
		if err := json.Unmarshal(sc.Bytes(), &batch); err != nil {
			return fmt.Errorf("decoding an event: %w", err)
		}
		for _, e := range batch.Events {
			f(e)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("the event stream ended")
}
