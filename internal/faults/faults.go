// Package faults runs fault scenarios against a real Nomad cluster (package
// experiment/cluster: 3 servers and 3 clients, each on a host of its own inside
// the sandbox) and checks that nothing is lost: mid rolling deployment it
// kills the Raft leader, restarts a client, cuts a client's host off for
// longer than its heartbeat TTL, stalls the leader, restores an older
// snapshot, serves the clients from a follower that lags, or stops a client
// as its tasks end while the leader stalls; once the fault has
// ended it waits for the cluster to converge, then compares, for every
// allocation, the servers' view with the client's own stored state
// (Check). One scenario runs per sandbox, for every binary.
package faults

import (
	"fmt"
	"strings"
	"time"
)

// Fault is one fault scenario.
type Fault struct {
	Name    string
	Summary string
	// MaxClientDisconnect, when set, is the job's max_client_disconnect.
	MaxClientDisconnect time.Duration
	// Control marks the checker's live control: the run loses one update
	// on purpose, and is ok only when exactly that one is reported lost.
	Control bool
	// Upgrade and Mixed scenarios run two binaries: the pinned version's
	// unpatched upstream and the binary under test (the fork or a
	// variant; they run for no other binary). Upgrade swaps one client's
	// binary on its data dir, to the tested one and back; Mixed runs
	// clients of both side by side.
	Upgrade, Mixed bool
	// Count, when set, is the job's count in this scenario, whatever -n.
	Count int
	// ShutdownDelay, when set, is the job's task shutdown_delay: how long
	// a stopped task runs on before it is killed. (mock_driver's
	// kill_after would do, but v1.5.3's and v1.6.1's never parse it: their
	// mock tasks die at once.)
	ShutdownDelay time.Duration
	// MinConverge, when set, is the least the run waits for convergence
	// after the fault, whatever -converge-timeout: a client learns that
	// the servers' view went back only when its blocking
	// Node.GetClientAllocs query returns, which it may not before the
	// servers' longest blocking query time (5 min, plus up to 1/16 of
	// jitter).
	MinConverge time.Duration
	// ProgressDeadline, when set, is the job's update progress_deadline
	// instead of 5 min: after a restore the deployment must not fail
	// before the clients can learn of it (MinConverge), counted from its
	// last progress before the snapshot.
	ProgressDeadline time.Duration
}

// Pair reports whether the scenario runs upstream and a tested binary
// together.
func (f Fault) Pair() bool { return f.Upgrade || f.Mixed }

// The scenarios, in the order they run.
var Faults = []Fault{
	{Name: "leader-kill", Summary: "SIGKILL the Raft leader mid rolling deployment; a new leader takes over"},
	{Name: "client-restart", Summary: "stop a client agent (SIGINT) mid deployment, start it again 5 s later on the same data dir"},
	{Name: "partition", Summary: "take a client host's link down until the servers mark its node down (past the heartbeat TTL), then up"},
	{Name: "partition-mcd", Summary: "the partition with max_client_disconnect = 2m: the node's allocations turn unknown, then reconnect", MaxClientDisconnect: 2 * time.Minute},
	{Name: "server-stall", Summary: "SIGSTOP the Raft leader for 15 s mid deployment, then SIGCONT"},
	{Name: "snapshot-restore", Summary: "save a Raft snapshot through the API mid deployment, let the deployment finish, restore the older snapshot: the servers must converge to what the clients ran (waits at least 8 min: clients see the restore when their 5-min blocking query returns; the job's progress_deadline is 10 min, so the restored deployment outlasts that wait)", MinConverge: 8 * time.Minute, ProgressDeadline: 10 * time.Minute},
	{Name: "stale-read", Summary: "cut a follower off mid deployment while the others finish it and collect the stopped allocations (system gc), then pin every client to the lagging follower for 8 s (AllowStale reads), then join all again"},
	{Name: "shutdown-flush", Summary: "stall (SIGSTOP) the leader as a task of a client is being stopped (shutdown_delay 3s; the first stop seen, on whichever client), stop that client (SIGINT) right after the task ended, continue the leader, start the client again 5 s later: its final statuses must reach the servers", ShutdownDelay: 3 * time.Second},
	{Name: "dropped-update", Summary: "the checker's control: after convergence, restart a task on client1 while its link is down and stop the agent before it reconnects; exactly that update must be reported lost", Control: true},
	{Name: "upgrade", Summary: "in-place upgrade and back: a client of upstream with running raw_exec tasks is stopped, started with the tested binary on its data dir, then with upstream again, then restarted on upstream (the control); after each swap the same allocations and task processes run, no restore error is logged for them, the node is ready and a job update deploys", Upgrade: true, Count: 6},
	{Name: "upgrade-control", Summary: "the upgrade checks' live control: the upgrade, but one task's process is killed while client1 is stopped for the first swap; exactly that task must be reported (not kept, restarted)", Upgrade: true, Control: true, Count: 6},
	{Name: "mixed", Summary: "upstream servers, an upstream client and two clients of the tested binary deploy and roll one job", Mixed: true},
}

// FaultNames lists the scenarios' names.
func FaultNames() []string {
	var names []string
	for _, f := range Faults {
		names = append(names, f.Name)
	}
	return names
}

// LookupFault returns the named scenario.
func LookupFault(name string) (Fault, error) {
	for _, f := range Faults {
		if f.Name == name {
			return f, nil
		}
	}
	return Fault{}, fmt.Errorf("unknown scenario %q (want %s)", name, strings.Join(FaultNames(), ", "))
}

// ParseFaults parses a comma-separated list of scenario names; "" or "all"
// is every scenario.
func ParseFaults(list string) ([]Fault, error) {
	if list == "" || list == "all" {
		return append([]Fault(nil), Faults...), nil
	}
	var out []Fault
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		f, err := LookupFault(name)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("scenario %s given twice", name)
		}
		seen[name] = true
		out = append(out, f)
	}
	return out, nil
}
