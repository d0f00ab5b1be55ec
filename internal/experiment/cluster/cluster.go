// Package cluster runs a real Nomad cluster inside the sandbox: server and
// client agents as separate processes, either all on the sandbox's loopback
// (the single topology) or each on a host of its own — a network namespace
// joined to the others by a bridge — with three servers replicating over
// the network (the multi topology, the shape of a production cluster). It
// gives the benchmark and fault scenarios a small API: start, stop, kill,
// pause and resume an agent, take a host's link down and up, separate
// hosts from each other (pin clients to one server), find the leader, read
// a host's traffic; its Client saves and restores Raft snapshots and runs
// the servers' garbage collection.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
)

// Topology is the shape of the cluster.
type Topology string

const (
	// Single is 1 server and the clients on the sandbox's 127.0.0.1.
	Single Topology = "single"
	// Multi is 3 servers and the clients, each in its own network
	// namespace on a bridge.
	Multi Topology = "multi"
)

// Topologies lists the topologies.
var Topologies = []Topology{Single, Multi}

// ParseTopology returns the named topology.
func ParseTopology(s string) (Topology, error) {
	for _, t := range Topologies {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("unknown topology %q (want %s or %s)", s, Single, Multi)
}

// Servers is the topology's number of servers.
func (t Topology) Servers() int {
	if t == Multi {
		return 3
	}
	return 1
}

// Spec configures a cluster.
type Spec struct {
	Topology Topology
	Nomad    string // the nomad binary
	// Dir holds one directory per agent: config and log.
	Dir string
	// DataRoot holds the agents' data dirs; keep it short (Nomad makes
	// unix sockets in them).
	DataRoot string
	Clients  int
	// StartTimeout bounds waiting for a leader and for ready clients.
	StartTimeout time.Duration
	// ServerRPCMaxConnsPerClient, when set, is the servers'
	// limits.rpc_max_conns_per_client: 0 lifts the limit of 100 RPC
	// connections per client IP address, which many clients on one host
	// (a node simulator) exceed.
	ServerRPCMaxConnsPerClient *int
	// AgentNomad, when it names an agent, is the binary that agent runs
	// instead of Nomad (a cluster of mixed versions).
	AgentNomad map[string]string
	// ClientDrivers and ClientExtra are every client's AgentSpec.Drivers
	// and AgentSpec.Extra.
	ClientDrivers []string
	ClientExtra   string
	Log           io.Writer
}

// Layout returns the agents of the topology: servers first, then clients,
// each with its address, ports, directory under dir and data dir under
// data. On the single topology the agents share 127.0.0.1 and differ in
// ports; on the multi topology each has a host and the default ports.
func Layout(t Topology, dir, data string, clients int) []AgentSpec {
	servers := t.Servers()
	var specs []AgentSpec
	addr := func(i int) string {
		if t == Multi {
			return fmt.Sprintf("198.51.100.%d", i+1)
		}
		return "127.0.0.1"
	}
	for i := 0; i < servers; i++ {
		name := "server"
		if servers > 1 {
			name = fmt.Sprintf("server%d", i+1)
		}
		s := AgentSpec{Name: name, Server: true, Addr: addr(i), HTTP: 4646, RPC: 4647, Serf: 4648,
			BootstrapExpect: servers,
			Dir:             filepath.Join(dir, name), Data: filepath.Join(data, name)}
		if t != Multi {
			s.HTTP, s.RPC, s.Serf = 4646+10*i, 4647+10*i, 4648+10*i
		}
		specs = append(specs, s)
	}
	var rpcs []string
	for i := range specs {
		rpcs = append(rpcs, specs[i].RPCAddr())
	}
	for i := range specs {
		for j := range specs {
			if i != j {
				specs[i].Peers = append(specs[i].Peers, fmt.Sprintf("%s:%d", specs[j].Addr, specs[j].Serf))
			}
		}
	}
	for i := 1; i <= clients; i++ {
		name := fmt.Sprintf("client%d", i)
		c := AgentSpec{Name: name, Addr: addr(servers + i - 1), HTTP: 4646, RPC: 4647, Serf: 4648,
			ServerRPCs: rpcs, NetworkInterface: hostIface,
			Dir: filepath.Join(dir, name), Data: filepath.Join(data, name)}
		if t != Multi {
			p := 5000 + 10*i
			c.HTTP, c.RPC, c.Serf = p, p+1, p+2
			c.NetworkInterface = "lo"
		}
		specs = append(specs, c)
	}
	return specs
}

// Cluster is a running cluster.
type Cluster struct {
	Spec    Spec
	Hosts   []*Host
	Servers []*Agent
	Clients []*Agent
}

// Start sets the network up, checks that no host can reach anything outside
// the sandbox, starts the servers and clients, and waits for a leader and
// for every client to be ready with a healthy mock driver. It must run
// inside the sandbox. On error the cluster is stopped.
func Start(ctx context.Context, spec Spec) (*Cluster, error) {
	if err := sandbox.Verify(); err != nil {
		return nil, fmt.Errorf("refusing to start agents outside the sandbox: %w", err)
	}
	if spec.StartTimeout == 0 {
		spec.StartTimeout = 2 * time.Minute
	}
	if spec.Log == nil {
		spec.Log = io.Discard
	}
	c := &Cluster{Spec: spec}
	if err := c.start(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	specs := Layout(c.Spec.Topology, c.Spec.Dir, c.Spec.DataRoot, c.Spec.Clients)
	for i := range specs {
		if specs[i].Server {
			specs[i].RPCMaxConnsPerClient = c.Spec.ServerRPCMaxConnsPerClient
		} else {
			specs[i].Drivers, specs[i].Extra = c.Spec.ClientDrivers, c.Spec.ClientExtra
		}
	}
	if c.Spec.Topology == Multi {
		if err := newBridge(ctx); err != nil {
			return err
		}
		for i := range specs {
			h, err := newHost(ctx, specs[i].Name, i+1)
			if err != nil {
				return err
			}
			if h.Addr != specs[i].Addr {
				return fmt.Errorf("host %s: address %s, layout says %s", h.Name, h.Addr, specs[i].Addr)
			}
			c.Hosts = append(c.Hosts, h)
			specs[i].Host = h
		}
		for _, h := range c.Hosts {
			if err := h.CheckIsolated(ctx); err != nil {
				return fmt.Errorf("refusing to start agents: %w", err)
			}
		}
	} else {
		h := &Host{Name: "sandbox", Addr: "127.0.0.1"}
		c.Hosts = []*Host{h}
		for i := range specs {
			specs[i].Host = h
		}
	}
	for _, s := range specs {
		a := &Agent{Spec: s, API: NewClient(s.HTTPAddr())}
		if err := a.start(c.nomadOf(s.Name)); err != nil {
			return err
		}
		if s.Server {
			c.Servers = append(c.Servers, a)
		} else {
			c.Clients = append(c.Clients, a)
		}
	}
	if _, err := c.WaitLeader(ctx, c.Spec.StartTimeout); err != nil {
		return err
	}
	return c.WaitClientsReady(ctx, c.Spec.StartTimeout)
}

// Agents returns the servers, then the clients.
func (c *Cluster) Agents() []*Agent {
	return append(append([]*Agent(nil), c.Servers...), c.Clients...)
}

// Agent returns the named agent, or nil.
func (c *Cluster) Agent(name string) *Agent {
	for _, a := range c.Agents() {
		if a.Spec.Name == name {
			return a
		}
	}
	return nil
}

// CheckAlive fails if an agent exited that was not stopped on purpose.
func (c *Cluster) CheckAlive() error { return CheckAlive(c.Agents()) }

// Leader asks the running servers for the leader and returns its agent;
// nil while there is none.
func (c *Cluster) Leader(ctx context.Context) (*Agent, error) {
	var errs []error
	for _, s := range c.Servers {
		if exited, _ := s.Exited(); exited {
			continue
		}
		addr, err := s.API.Leader(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if addr == "" {
			return nil, nil
		}
		for _, l := range c.Servers {
			if l.Spec.RPCAddr() == addr {
				return l, nil
			}
		}
		return nil, fmt.Errorf("the leader %s is none of the cluster's servers", addr)
	}
	return nil, errors.Join(errs...)
}

// API returns the API of a running server, preferring the leader.
func (c *Cluster) API(ctx context.Context) *Client {
	if l, err := c.Leader(ctx); err == nil && l != nil {
		return l.API
	}
	for _, s := range c.Servers {
		if exited, _ := s.Exited(); !exited {
			return s.API
		}
	}
	return c.Servers[0].API
}

// WaitLeader waits until the servers agree on a leader and returns it.
func (c *Cluster) WaitLeader(ctx context.Context, timeout time.Duration) (*Agent, error) {
	var leader *Agent
	err := WaitFor(ctx, "a leader", timeout, 200*time.Millisecond, func() (bool, error) {
		if err := c.CheckAlive(); err != nil {
			return false, err
		}
		l, err := c.Leader(ctx)
		leader = l
		return l != nil, err
	})
	return leader, err
}

// WaitClientsReady waits until every running client's node is ready with
// a healthy mock driver.
func (c *Cluster) WaitClientsReady(ctx context.Context, timeout time.Duration) error {
	want := 0
	for _, a := range c.Clients {
		if exited, _ := a.Exited(); !exited {
			want++
		}
	}
	return WaitFor(ctx, "ready clients", timeout, 200*time.Millisecond, func() (bool, error) {
		if err := c.CheckAlive(); err != nil {
			return false, err
		}
		nodes, err := c.API(ctx).Nodes(ctx)
		if err != nil {
			return false, err
		}
		ready := 0
		for _, n := range nodes {
			if d := n.Drivers["mock_driver"]; n.Status == "ready" && d != nil && d.Healthy {
				ready++
			}
		}
		return ready >= want, nil
	})
}

// nomadOf is the binary the named agent starts with.
func (c *Cluster) nomadOf(name string) string {
	if bin := c.Spec.AgentNomad[name]; bin != "" {
		return bin
	}
	return c.Spec.Nomad
}

// Restart starts a stopped or killed agent again, on the same host, config,
// data dir and binary (a client restores its allocations from it).
func (c *Cluster) Restart(a *Agent) error {
	bin := a.Nomad()
	if bin == "" {
		bin = c.nomadOf(a.Spec.Name)
	}
	return c.RestartWith(a, bin)
}

// RestartWith starts a stopped or killed agent again on the same host,
// config and data dir with another nomad binary: an in-place upgrade or
// downgrade.
func (c *Cluster) RestartWith(a *Agent, nomad string) error {
	if exited, _ := a.Exited(); !exited {
		return fmt.Errorf("%s is still running: stop or kill it first", a.Spec.Name)
	}
	return a.start(nomad)
}

// Host returns the host of the named agent, or nil.
func (c *Cluster) Host(name string) *Host {
	if a := c.Agent(name); a != nil {
		return a.Spec.Host
	}
	return nil
}

// Separate makes the hosts of the agents in a and those in b unreachable
// from each other, both ways (separated), or reachable again: a partition
// between two groups that leaves every other path up. Every pair is tried;
// the errors are joined.
func (c *Cluster) Separate(ctx context.Context, a, b []*Agent, separated bool) error {
	var errs []error
	for _, x := range a {
		for _, y := range b {
			if x.Spec.Host == y.Spec.Host {
				errs = append(errs, fmt.Errorf("%s and %s share a host", x.Spec.Name, y.Spec.Name))
				continue
			}
			errs = append(errs, x.Spec.Host.SetReachable(ctx, y.Spec.Addr, !separated), y.Spec.Host.SetReachable(ctx, x.Spec.Addr, !separated))
		}
	}
	return errors.Join(errs...)
}

// Pin separates the clients from every server but server (pinned), so
// they talk to it alone, or joins them to the others again.
func (c *Cluster) Pin(ctx context.Context, clients []*Agent, server *Agent, pinned bool) error {
	return c.Separate(ctx, clients, c.Others(server), pinned)
}

// Others returns the servers but s.
func (c *Cluster) Others(s *Agent) []*Agent {
	var out []*Agent
	for _, o := range c.Servers {
		if o != s {
			out = append(out, o)
		}
	}
	return out
}

// Stop stops the clients, then the servers: SIGINT, then a kill after a
// grace period; then it removes the hosts. The sandbox's PID namespace
// kills whatever is left.
func (c *Cluster) Stop() {
	stopAll := func(agents []*Agent) {
		var wg sync.WaitGroup
		for _, a := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !a.Stop(15 * time.Second) {
					fmt.Fprintf(c.Spec.Log, "    %s did not stop within 15s of SIGINT; killed\n", a.Spec.Name)
				}
			}()
		}
		wg.Wait()
	}
	stopAll(c.Clients)
	stopAll(c.Servers)
	for _, h := range c.Hosts {
		h.close()
	}
}

// MountTmpfs mounts a fresh tmpfs at dir. Called only in the sandbox,
// whose mount namespace has private propagation: the machine never sees
// the mount, and it vanishes with the sandbox.
func MountTmpfs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := mount(dir); err != nil {
		return fmt.Errorf("mounting a tmpfs for data dirs at %s: %w", dir, err)
	}
	return nil
}
