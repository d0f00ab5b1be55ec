// Package bench measures the alloc-update and Raft traffic, CPU and bytes
// of a real Nomad cluster (see package cluster: 3 servers and 3 clients on
// hosts of their own, or 1 server and 3 clients on one host) for several
// nomad binaries: unpatched upstream, the fork, a newer upstream version
// and rule variants. One scenario runs per sandbox, the binaries
// interleaved round by round; the runs are aggregated into a table, a JSON
// file that holds every label the report needs, and PNG charts.
package bench
