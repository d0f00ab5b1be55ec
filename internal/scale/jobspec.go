package scale

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Jobspec is the Nomad job that runs the simulators on a placement
// cluster: Instances allocations of one task group, each a nodesim process
// (raw_exec) of NodesPerInstance simulated nodes registering with Servers,
// the servers under test. One group of count Instances rather than a group
// per instance keeps the jobspec the same size for 2 instances or 2,000;
// the allocation index makes each instance's node names unique.
type Jobspec struct {
	// ID is the job's ID and name; Datacenters where it may run.
	ID          string
	Datacenters []string
	Instances   int
	// NodesPerInstance is each instance's simulated nodes.
	NodesPerInstance int
	// Servers are the RPC addresses (host:port) of the servers under test.
	Servers []string
	// Command is the nodesim binary on the placement clients; with
	// Artifact set, the job downloads it from there into local/ and
	// Command is its name there.
	Command  string
	Artifact string
	// NetworkInterface is the simulated nodes' network_interface; "" lets
	// nodesim take the default route's.
	NetworkInterface string
	// Setup, Start and Kill are the realistic runners' delays.
	Setup, Start, Kill time.Duration
	// CPU (MHz) and MemoryMB are each instance's resources; 0 takes
	// DefaultInstanceResources.
	CPU, MemoryMB int
}

// JobNodePrefix is the start of every simulated node's name the job runs:
// instance i's nodes are JobNodePrefix + i + "-" + their index (nodesim
// appends "-" and the index to its -name-prefix).
const JobNodePrefix = nodePrefix

// httpPort is the label of each instance's port for its state API.
const httpPort = "http"

// DefaultInstanceResources returns an instance's CPU (MHz) and memory (MB)
// for n nodes: a process of about 2 MiB per node (docs/scale.md) with room
// to spare, and a share of CPU that lets the scheduler spread instances.
func DefaultInstanceResources(n int) (cpu, memoryMB int) {
	return 100 + 5*n, 64 + 4*n
}

// Validate checks the jobspec's values.
func (j Jobspec) Validate() error {
	if j.ID == "" || strings.ContainsAny(j.ID, " \t\n\"") {
		return fmt.Errorf("job ID %q: want a non-empty name without spaces or quotes", j.ID)
	}
	if len(j.Datacenters) == 0 {
		return errors.New("the job needs at least one datacenter")
	}
	if j.Instances < 1 || j.NodesPerInstance < 1 {
		return fmt.Errorf("%d instances × %d nodes: both must be at least 1", j.Instances, j.NodesPerInstance)
	}
	if len(j.Servers) == 0 {
		return errors.New("the servers under test are required (their RPC addresses, host:port)")
	}
	for _, s := range j.Servers {
		host, port, err := net.SplitHostPort(s)
		if err != nil || host == "" {
			return fmt.Errorf("server %q: want host:port (the server's RPC address)", s)
		}
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return fmt.Errorf("server %q: bad port", s)
		}
	}
	if j.Command == "" {
		return errors.New("the nodesim command is required")
	}
	if j.Artifact == "" && !strings.HasPrefix(j.Command, "/") {
		return fmt.Errorf("nodesim command %q: want an absolute path on the placement clients, or an artifact", j.Command)
	}
	if j.Setup < 0 || j.Start < 0 || j.Kill < 0 || j.CPU < 0 || j.MemoryMB < 0 {
		return errors.New("delays and resources must not be negative")
	}
	return nil
}

// command is the task's command: the artifact's file in local/, or the
// path on the clients.
func (j Jobspec) command() string {
	if j.Artifact != "" {
		name := j.Command
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		return "local/" + name
	}
	return j.Command
}

// args are the nodesim flags of an instance; Nomad interpolates the
// ${...} at placement.
func (j Jobspec) args() []string {
	args := []string{
		"-servers", strings.Join(j.Servers, ","),
		"-nodes", strconv.Itoa(j.NodesPerInstance),
		"-name-prefix", JobNodePrefix + "${NOMAD_ALLOC_INDEX}",
		"-data-dir", "${NOMAD_TASK_DIR}/nodesim",
	}
	if j.NetworkInterface != "" {
		args = append(args, "-network-interface", j.NetworkInterface)
	}
	return append(args,
		"-realistic",
		"-setup-delay", j.Setup.String(),
		"-start-delay", j.Start.String(),
		"-kill-delay", j.Kill.String(),
		"-http", "${NOMAD_ADDR_"+httpPort+"}",
		"-log-level", "warn",
	)
}

// HCL renders the jobspec, ready for `nomad job run` or the tool's
// submission (which has the placement cluster parse this same text).
func (j Jobspec) HCL() string {
	cpu, mem := DefaultInstanceResources(j.NodesPerInstance)
	if j.CPU > 0 {
		cpu = j.CPU
	}
	if j.MemoryMB > 0 {
		mem = j.MemoryMB
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %d nodesim instances × %d simulated nodes, registering with the\n", j.Instances, j.NodesPerInstance)
	fmt.Fprintf(&b, "# servers under test (which need limits { rpc_max_conns_per_client = 0 }).\n")
	fmt.Fprintf(&b, "# Written by the scale simulation (-place job).\n")
	fmt.Fprintf(&b, "job %q {\n", j.ID)
	fmt.Fprintf(&b, "  datacenters = %s\n", quoteList(j.Datacenters))
	b.WriteString("  type        = \"service\"\n\n")
	b.WriteString("  group \"nodesim\" {\n")
	fmt.Fprintf(&b, "    count = %d\n\n", j.Instances)
	b.WriteString("    # Instances on distinct clients where there are enough.\n")
	b.WriteString("    spread {\n      attribute = \"${node.unique.id}\"\n    }\n\n")
	b.WriteString("    # A simulator that dies is a failed run, not one to hide.\n")
	b.WriteString("    restart {\n      attempts = 0\n      mode     = \"fail\"\n    }\n")
	b.WriteString("    reschedule {\n      attempts  = 0\n      unlimited = false\n    }\n\n")
	b.WriteString("    # Each instance serves its nodes' own view at /v1/state here.\n")
	fmt.Fprintf(&b, "    network {\n      port %q {}\n    }\n\n", httpPort)
	b.WriteString("    task \"nodesim\" {\n")
	b.WriteString("      driver = \"raw_exec\"\n\n")
	if j.Artifact != "" {
		fmt.Fprintf(&b, "      artifact {\n        source      = %q\n        destination = \"local/\"\n      }\n\n", j.Artifact)
	}
	b.WriteString("      config {\n")
	fmt.Fprintf(&b, "        command = %q\n", j.command())
	b.WriteString("        args = [\n")
	args := j.args()
	for i := 0; i < len(args); i++ {
		// A flag and its value on one line.
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			fmt.Fprintf(&b, "          %q, %q,\n", args[i], args[i+1])
			i++
			continue
		}
		fmt.Fprintf(&b, "          %q,\n", args[i])
	}
	b.WriteString("        ]\n      }\n\n")
	fmt.Fprintf(&b, "      resources {\n        cpu    = %d\n        memory = %d\n      }\n", cpu, mem)
	b.WriteString("    }\n  }\n}\n")
	return b.String()
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
