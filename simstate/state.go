// Package simstate is the simulated nodes' own view of their allocations,
// the one definition of what sim/nodesim serves at /v1/state and what
// nomadfork's scale simulation reads to compare with the servers' view.
// It is a module of its own, with no dependencies, so that both the sim
// module (built against Nomad) and the tool's module can require it.
package simstate

// State is the simulated nodes' own view of their allocations.
type State struct {
	Nodes []NodeState `json:"nodes"`

	// HeapInuse and Goroutines describe the simulator process.
	HeapInuse  uint64 `json:"heap_inuse"`
	Goroutines int    `json:"goroutines"`

	// UpdateAllocRTT is the round trip of every Node.UpdateAlloc RPC the
	// simulated nodes made since the simulator started (the clients'
	// nomad.client.allocations.updates.rpc_time timer), all nodes
	// together; nil from a simulator that does not serve it.
	UpdateAllocRTT *Histogram `json:"update_alloc_rtt,omitempty"`
}

// NodeState is a node's view of its allocations.
type NodeState struct {
	Name   string       `json:"name"`
	ID     string       `json:"id"`
	Allocs []AllocState `json:"allocs"`
}

// AllocState is a node's view of an allocation: what its alloc runner
// reported last.
type AllocState struct {
	ID           string `json:"id"`
	ClientStatus string `json:"client_status"`
	// Healthy is the deployment health the runner decided, nil if none.
	Healthy *bool                `json:"healthy,omitempty"`
	Tasks   map[string]TaskState `json:"tasks"`
}

// TaskState is a task's state and how many events it has.
type TaskState struct {
	State  string `json:"state"`
	Events int    `json:"events"`
}
