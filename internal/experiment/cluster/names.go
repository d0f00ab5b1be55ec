package cluster

// Server metrics, read from the server's cumulative counters at
// /v1/metrics?format=prometheus (Nomad's telemetry prefix "nomad" plus
// the go-metrics key joined with "_"). A summary's figure is its count.
const (
	// MetricUpdateAlloc is the summary of Node.UpdateAlloc RPCs the server
	// handled.
	MetricUpdateAlloc = "nomad_nomad_client_update_alloc"
	// MetricRaftApply counts Raft applies.
	MetricRaftApply = "nomad_raft_apply"
	// MetricFSMAllocClientUpdate is the summary of the FSM's applies of
	// AllocClientUpdate log entries.
	MetricFSMAllocClientUpdate = "nomad_nomad_fsm_alloc_client_update"
	// MetricRaftLogSize is the summary of the sizes of the log entries a
	// server's Raft log store (raft-boltdb) wrote: its sum is their bytes.
	MetricRaftLogSize = "nomad_raft_boltdb_logSize"
)

// Client metrics only the fork's clients expose, read from each client's
// own /v1/metrics?format=prometheus and summed over the clients. They are
// absent on upstream versions, whose figures are then "n/a". The names are
// what the fork's client/alloc_updates.go emits (go-metrics keys
// client.allocations.updates.{rpcs,sent,buffered}).
const (
	// MetricClientUpdateRPCs counts Node.UpdateAlloc RPCs a client sent,
	// labelled by what triggered them.
	MetricClientUpdateRPCs = "nomad_client_allocations_updates_rpcs"
	LabelTrigger           = "trigger"
	// MetricClientUpdatesSent counts alloc updates a client sent,
	// labelled by priority.
	MetricClientUpdatesSent = "nomad_client_allocations_updates_sent"
	LabelPriority           = "priority"
	// MetricClientUpdatesBuffered is a gauge of updates waiting to be sent.
	MetricClientUpdatesBuffered = "nomad_client_allocations_updates_buffered"
)

// Label values of the fork's client metrics, in report order.
var (
	Triggers   = []string{"urgent", "tick", "retry"}
	Priorities = []string{"urgent", "typical"}
)
