package faults

import (
	"fmt"
	"sort"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Task states, as Nomad names them.
const (
	TaskPending = "pending"
	TaskRunning = "running"
	TaskDead    = "dead"
)

// Task events the checker counts: a task (re)started by its runner, and a
// restore that could not reattach to the task (the runner then starts the
// task again once the servers confirm the allocation).
const (
	eventStarted       = "Started"
	eventFailedRestore = "Failed Restoring Task"
)

// TaskView is one task of an allocation as one side sees it.
type TaskView struct {
	State    string `json:"state"`
	Failed   bool   `json:"failed,omitempty"`
	Restarts uint64 `json:"restarts,omitempty"`
	// Starts counts the task's Started events, FailedRestores its Failed
	// Restoring Task events.
	Starts         int `json:"starts,omitempty"`
	FailedRestores int `json:"failed_restores,omitempty"`
}

// ServerAlloc is an allocation as the servers hold it.
type ServerAlloc struct {
	ID            string `json:"id"`
	Name          string `json:"name"` // job.group[index]
	Node          string `json:"node"` // the client agent's name
	JobVersion    uint64 `json:"job_version"`
	DesiredStatus string `json:"desired_status"`
	ClientStatus  string `json:"client_status"`
	// Healthy is the allocation's deployment health, nil while unset.
	Healthy *bool               `json:"healthy,omitempty"`
	Tasks   map[string]TaskView `json:"tasks,omitempty"`
}

// ClientAlloc is an allocation as the client that runs it stores it.
type ClientAlloc struct {
	ID string `json:"id"`
	// Tasks holds the tasks that have a driver handle: those the client
	// started and that have not exited. A task without a handle is not
	// running on the client.
	Tasks   map[string]TaskView `json:"tasks,omitempty"`
	Healthy *bool               `json:"healthy,omitempty"`
}

// Running reports whether a task of the allocation runs on the client.
func (a ClientAlloc) Running() bool {
	for _, t := range a.Tasks {
		if t.State == TaskRunning {
			return true
		}
	}
	return false
}

// Status is the allocation's ClientStatus as the client derives it from
// its task states (Nomad's rule: a failed task fails the allocation; else
// a running task makes it running, a pending one pending; all dead is
// complete); "" when the client holds no task state.
func (a ClientAlloc) Status() string {
	var pending, running, dead, failed bool
	for _, t := range a.Tasks {
		switch {
		case t.State == TaskRunning:
			running = true
		case t.State == TaskPending:
			pending = true
		case t.State == TaskDead && t.Failed:
			failed = true
		case t.State == TaskDead:
			dead = true
		}
	}
	switch {
	case failed:
		return experiment.ClientFailed
	case running:
		return experiment.ClientRunning
	case pending:
		return experiment.ClientPending
	case dead:
		return experiment.ClientComplete
	}
	return ""
}

// ClientView is what one client stores: its allocations by ID. A nil
// view means the client's state could not be read: its allocations are
// counted as unchecked, never as agreeing.
type ClientView map[string]ClientAlloc

// Finding is one disagreement.
type Finding struct {
	Alloc  string `json:"alloc"`
	Name   string `json:"name,omitempty"`
	Node   string `json:"node,omitempty"`
	Detail string `json:"detail"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s (%s on %s): %s", experiment.ShortID(f.Alloc), f.Name, f.Node, f.Detail)
}

// Verdict is the checker's result.
type Verdict struct {
	// Checked counts the allocations compared with their client's view.
	Checked int `json:"checked"`
	// Unchecked counts the allocations whose client's view is missing.
	Unchecked int `json:"unchecked"`
	// Lost are the allocations whose client's state the servers do not
	// hold: an update the client made that never reached them.
	Lost []Finding `json:"lost,omitempty"`
	// Duplicates are runs that should not exist: two allocations of the
	// same name running at once, or a task started again without a
	// restart the client counted or a failed restore.
	Duplicates []Finding `json:"duplicates,omitempty"`
	// Rerun are tasks a restarted client could not reattach to and
	// started again: Nomad's fallback for a failed restore, not a second
	// concurrent run (mock_driver tasks live in the agent's process, so
	// they cannot be reattached).
	Rerun []Finding `json:"rerun,omitempty"`
	// ClientOnly are allocations a client holds, not running, that the
	// servers do not hold: created after the snapshot a restore went back
	// to, or collected. The servers cannot converge to them (their state
	// no longer has them); they count only if they still run, as
	// Duplicates.
	ClientOnly []Finding `json:"client_only,omitempty"`
}

// Check compares, for every allocation, the servers' ClientStatus,
// deployment health and task states with the view of the client the
// servers placed it on. clients maps a client agent's name to its view.
//
// An update is lost when the client holds a state the servers do not:
//   - the client holds task states: the servers must hold the ClientStatus
//     they make (Status) and, for each task, the same state, failure and
//     restarts;
//   - the client holds no task state, or does not have the allocation: the
//     servers must not hold it running (nor pending, when the client does
//     not have it);
//   - the client decided the allocation's health: the servers must hold
//     the same health.
//
// An allocation a client holds that the servers do not (a restore went
// back to before it, or they collected it) is not a lost update: the
// servers converge to what the clients ran only as far as their state
// knows it. It must not run on its client, though: one that does is a
// duplicate run (the servers place its name again); one that does not is
// counted in ClientOnly.
func Check(servers []ServerAlloc, clients map[string]ClientView) Verdict {
	var v Verdict
	for _, s := range servers {
		view, ok := clients[s.Node]
		if !ok || view == nil {
			v.Unchecked++
			continue
		}
		v.Checked++
		c, has := view[s.ID]
		if d := disagreement(s, c, has); d != "" {
			v.Lost = append(v.Lost, Finding{Alloc: s.ID, Name: s.Name, Node: s.Node, Detail: d})
		}
		if has {
			for _, name := range sortedKeys(c.Tasks) {
				t := c.Tasks[name]
				expected := int(t.Restarts) + 1
				f := Finding{Alloc: s.ID, Name: s.Name, Node: s.Node}
				switch {
				case t.Starts > expected+t.FailedRestores:
					f.Detail = fmt.Sprintf("task %s started %d times with %d restart(s) and %d failed restore(s)", name, t.Starts, t.Restarts, t.FailedRestores)
					v.Duplicates = append(v.Duplicates, f)
				case t.Starts > expected:
					f.Detail = fmt.Sprintf("task %s started again after %d failed restore(s)", name, t.FailedRestores)
					v.Rerun = append(v.Rerun, f)
				}
			}
		}
	}
	v.Duplicates = append(v.Duplicates, concurrentRuns(servers, clients)...)
	held := make(map[string]bool, len(servers))
	for _, s := range servers {
		held[s.ID] = true
	}
	for _, node := range sortedKeys(clients) {
		view := clients[node]
		for _, id := range sortedKeys(view) {
			if held[id] {
				continue
			}
			c := view[id]
			if c.Running() {
				v.Duplicates = append(v.Duplicates, Finding{Alloc: id, Node: node, Detail: "it runs on its client; the servers do not hold it"})
				continue
			}
			status := c.Status()
			if status == "" {
				status = "without task state"
			}
			v.ClientOnly = append(v.ClientOnly, Finding{Alloc: id, Node: node, Detail: "its client holds it " + status + "; the servers do not hold it"})
		}
	}
	return v
}

// disagreement describes how the servers' view of an allocation differs
// from its client's, "" when they agree.
func disagreement(s ServerAlloc, c ClientAlloc, has bool) string {
	if !has {
		if s.ClientStatus == experiment.ClientRunning || s.ClientStatus == experiment.ClientPending {
			return fmt.Sprintf("the servers hold it %s; its client does not have it", s.ClientStatus)
		}
		return ""
	}
	status := c.Status()
	switch {
	case status == "" && s.ClientStatus == experiment.ClientRunning:
		return "the servers hold it running; no task of it runs on its client"
	case status == experiment.ClientRunning && s.ClientStatus != experiment.ClientRunning:
		return fmt.Sprintf("it runs on its client; the servers hold it %s", s.ClientStatus)
	case status != "" && status != s.ClientStatus:
		return fmt.Sprintf("its client holds it %s; the servers hold it %s", status, s.ClientStatus)
	}
	for _, name := range sortedKeys(c.Tasks) {
		ct := c.Tasks[name]
		st, ok := s.Tasks[name]
		switch {
		case !ok:
			return fmt.Sprintf("task %s is %s on its client; the servers have no state for it", name, ct.State)
		case st.State != ct.State:
			return fmt.Sprintf("task %s is %s on its client; the servers hold %s", name, ct.State, st.State)
		case st.Failed != ct.Failed:
			return fmt.Sprintf("task %s failed=%t on its client; the servers hold failed=%t", name, ct.Failed, st.Failed)
		case st.Restarts != ct.Restarts:
			return fmt.Sprintf("task %s restarted %d time(s) on its client; the servers hold %d", name, ct.Restarts, st.Restarts)
		}
	}
	if c.Healthy != nil && (s.Healthy == nil || *s.Healthy != *c.Healthy) {
		return fmt.Sprintf("its client set health %s; the servers hold %s", experiment.Health(c.Healthy), experiment.Health(s.Healthy))
	}
	return ""
}

// concurrentRuns finds allocation names that run on more than one client
// (or twice on one) at once: every run beyond the first is a duplicate.
func concurrentRuns(servers []ServerAlloc, clients map[string]ClientView) []Finding {
	running := map[string][]ServerAlloc{}
	for _, s := range servers {
		if c, ok := clients[s.Node][s.ID]; ok && c.Running() {
			running[s.Name] = append(running[s.Name], s)
		}
	}
	var out []Finding
	for _, name := range sortedKeys(running) {
		runs := running[name]
		for _, s := range runs[1:] {
			out = append(out, Finding{Alloc: s.ID, Name: name, Node: s.Node,
				Detail: fmt.Sprintf("%d allocations named %s run at once (also %s on %s)", len(runs), name, experiment.ShortID(runs[0].ID), runs[0].Node)})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
