// Package nodesim runs simulated Nomad client nodes in one process: real
// clients whose allocations are run by runner.AllocRunner, which runs no
// tasks. It is meant to load-test Nomad servers with many nodes.
//
// Simulated nodes fingerprint the host they run on and offer a single task
// driver, "mock_driver"; jobs placed on them must use it. Each node has the
// metadata "nodesim" set to "true".
package nodesim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/nomad/client"
	"github.com/hashicorp/nomad/client/config"
	"github.com/hashicorp/nomad/client/lib/cgutil"
	"github.com/hashicorp/nomad/drivers/mock"
	"github.com/hashicorp/nomad/helper/pluginutils/loader"
	"github.com/hashicorp/nomad/helper/pluginutils/singleton"
	"github.com/hashicorp/nomad/helper/pointer"
	"github.com/hashicorp/nomad/nomad/structs"

	"github.com/nomad-client-fork/nomad-client-fork/sim/runner"
)

const (
	// DefaultRegion is the region of simulated nodes if none is configured.
	DefaultRegion = "global"

	// DefaultDatacenter is the datacenter of simulated nodes if none is
	// configured.
	DefaultDatacenter = "dc1"

	// DefaultNodeNamePrefix is the prefix of the names of simulated nodes if
	// none is configured.
	DefaultNodeNamePrefix = "nodesim"

	// MetaKey is the node metadata key set to "true" on simulated nodes.
	MetaKey = "nodesim"
)

// Config configures a Simulator.
type Config struct {
	// Servers are the RPC addresses (host:port) of the Nomad servers.
	Servers []string

	// Nodes is the number of simulated nodes.
	Nodes int

	// DataDir holds the state of the simulated nodes, one directory per
	// node. Nodes keep their IDs when started again on the same DataDir.
	DataDir string

	// Region and Datacenter of the simulated nodes.
	Region     string
	Datacenter string

	// NodeNamePrefix is the prefix of the node names, which are
	// "<prefix>-<n>".
	NodeNamePrefix string

	// Logger is the logger of the simulator and its clients.
	Logger hclog.InterceptLogger

	// Timings, when set, make the nodes run realistic AllocRunners with
	// these delays (runner.NewRealistic); nil runs instant ones (runner.New).
	Timings *runner.Timings

	// NetworkInterface is the nodes' network_interface; empty: the one of
	// the default route.
	NetworkInterface string

	// StatsInterval is how often each node collects the host's resource
	// usage; 0 is DefaultStatsInterval.
	StatsInterval time.Duration
}

// DefaultStatsInterval is how often a simulated node collects the host's
// resource usage unless configured: every node of the process would read
// the same host's statistics, so they do it every minute, not every second
// as a real client does.
const DefaultStatsInterval = time.Minute

// Simulator runs simulated client nodes.
type Simulator struct {
	logger  hclog.Logger
	clients []*client.Client
	nodes   []*node
	// rtt counts the nodes' Node.UpdateAlloc round trips.
	rtt *timerSink
}

// Start starts the configured number of simulated nodes. They register with
// the servers in the background.
func Start(conf *Config) (*Simulator, error) {
	if conf.Nodes < 1 {
		return nil, errors.New("at least one node is required")
	}
	if len(conf.Servers) == 0 {
		return nil, errors.New("at least one server address is required")
	}
	if conf.DataDir == "" {
		return nil, errors.New("a data directory is required")
	}

	logger := conf.Logger
	if logger == nil {
		logger = hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "nodesim"})
	}

	sim := &Simulator{
		logger:  logger,
		clients: make([]*client.Client, 0, conf.Nodes),
		rtt:     newTimerSink(UpdateAllocRTTKey, RTTBoundsMs),
	}
	// The clients emit their metrics to the process's global sink: count
	// their round trips there, from before the first node starts.
	if err := installTimerSink(sim.rtt); err != nil {
		return nil, fmt.Errorf("failed to install the metrics sink: %w", err)
	}
	factory := config.AllocRunnerFactory(runner.New)
	if conf.Timings != nil {
		f, err := runner.NewRealistic(*conf.Timings)
		if err != nil {
			return nil, err
		}
		factory = f
	}
	for i := 0; i < conf.Nodes; i++ {
		n, err := startNode(conf, logger, i, factory)
		if err != nil {
			return nil, errors.Join(err, sim.Shutdown())
		}
		sim.clients = append(sim.clients, n.client)
		sim.nodes = append(sim.nodes, n)
	}

	logger.Info("started simulated nodes", "nodes", conf.Nodes, "servers", conf.Servers)
	return sim, nil
}

// startNode starts the i-th simulated node, whose allocations factory runs.
func startNode(conf *Config, logger hclog.InterceptLogger, i int, factory config.AllocRunnerFactory) (*node, error) {
	prefix := conf.NodeNamePrefix
	if prefix == "" {
		prefix = DefaultNodeNamePrefix
	}
	name := fmt.Sprintf("%s-%d", prefix, i)
	n := newNode(name)
	cfg, err := clientConfig(conf, name, nodeLogger(logger, name), n.track(factory))
	if err != nil {
		return nil, fmt.Errorf("failed to configure node %s: %w", name, err)
	}

	// The simulated nodes use neither Consul nor the alloc runners' service
	// registrations.
	c, err := client.NewClient(cfg, nil, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to start node %s: %w", name, err)
	}
	n.client = c
	return n, nil
}

// nodeLogger returns the logger of a node. The client replaces the name of
// its logger, so the node is identified by an argument.
func nodeLogger(logger hclog.InterceptLogger, name string) hclog.InterceptLogger {
	if l, ok := logger.With("node_name", name).(hclog.InterceptLogger); ok {
		return l
	}
	return logger.NamedIntercept(name)
}

// clientConfig returns the client configuration of a simulated node.
func clientConfig(conf *Config, name string, logger hclog.InterceptLogger, factory config.AllocRunnerFactory) (*config.Config, error) {
	cfg := config.DefaultConfig()
	cfg.Logger = logger
	cfg.Servers = conf.Servers
	cfg.AllocRunnerFactory = factory
	cfg.NetworkInterface = conf.NetworkInterface
	cfg.StatsCollectionInterval = conf.StatsInterval
	if cfg.StatsCollectionInterval <= 0 {
		cfg.StatsCollectionInterval = DefaultStatsInterval
	}

	cfg.Region = conf.Region
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}

	datacenter := conf.Datacenter
	if datacenter == "" {
		datacenter = DefaultDatacenter
	}
	cfg.Node = &structs.Node{
		Name:              name,
		Datacenter:        datacenter,
		Meta:              map[string]string{MetaKey: "true"},
		Reserved:          new(structs.Resources),
		ReservedResources: new(structs.NodeReservedResources),
	}
	cfg.Node.Canonicalize()

	cfg.StateDir = filepath.Join(conf.DataDir, name, "client")
	cfg.AllocDir = filepath.Join(conf.DataDir, name, "alloc")
	for _, dir := range []string{cfg.StateDir, cfg.AllocDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}

	// Servers are configured: never look them up in Consul.
	cfg.ConsulConfig.ClientAutoJoin = pointer.Of(false)

	// Skip probing cloud metadata endpoints once per node, and keep clear of
	// the cgroups of a real Nomad client on the same host.
	cfg.Options = map[string]string{
		"fingerprint.denylist": "env_aws,env_azure,env_digitalocean,env_gce",
	}
	cfg.CgroupParent = "/nodesim"
	if cgutil.UseV2 {
		cfg.CgroupParent = "nodesim.slice"
	}

	// Each node gets its own instance of the mock driver, so shutting down a
	// node does not stop the driver of the others.
	pluginLoader, err := loader.NewPluginLoader(&loader.PluginLoaderConfig{
		Logger: logger,
		InternalPlugins: map[loader.PluginID]*loader.InternalPluginConfig{
			mock.PluginID: mock.PluginConfig,
		},
		SupportedVersions: loader.AgentSupportedApiVersions,
	})
	if err != nil {
		return nil, err
	}
	cfg.PluginLoader = pluginLoader
	cfg.PluginSingletonLoader = singleton.NewSingletonLoader(logger, pluginLoader)

	return cfg, nil
}

// Clients returns the clients of the simulated nodes.
func (s *Simulator) Clients() []*client.Client {
	return s.clients
}

// Shutdown shuts down all simulated nodes. As with real clients, the servers
// mark the nodes down once their heartbeats expire.
func (s *Simulator) Shutdown() error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, c := range s.clients {
		wg.Add(1)
		go func(c *client.Client) {
			defer wg.Done()
			if err := c.Shutdown(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}(c)
	}
	wg.Wait()

	s.logger.Info("shut down simulated nodes", "nodes", len(s.clients))
	return errors.Join(errs...)
}
