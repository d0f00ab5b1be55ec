// Command nodesim runs simulated Nomad client nodes against Nomad servers.
//
// Usage:
//
//	nodesim -servers 10.0.0.1:4647,10.0.0.2:4647 -nodes 100 -data-dir /var/lib/nodesim
//
// The nodes run no tasks: their allocations are reported running until the
// servers stop them (-realistic: with the updates and delays of mock_driver
// tasks, their state kept in each node's state database and restored when
// nodesim starts again on the same -data-dir). Jobs placed on them must use
// the "mock_driver" task driver; the constraint ${meta.nodesim} = "true"
// selects them. With -http, the nodes' own view of their allocations is
// served as JSON at /v1/state.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	hclog "github.com/hashicorp/go-hclog"

	"github.com/nomad-client-fork/nomad-client-fork/sim/nodesim"
	"github.com/nomad-client-fork/nomad-client-fork/sim/runner"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	flags := flag.NewFlagSet("nodesim", flag.ContinueOnError)
	servers := flags.String("servers", "", "comma-separated RPC addresses (host:port) of the Nomad servers")
	nodes := flags.Int("nodes", 1, "number of simulated nodes")
	dataDir := flags.String("data-dir", "", "directory for the state of the simulated nodes")
	region := flags.String("region", nodesim.DefaultRegion, "region of the simulated nodes")
	datacenter := flags.String("datacenter", nodesim.DefaultDatacenter, "datacenter of the simulated nodes")
	namePrefix := flags.String("name-prefix", nodesim.DefaultNodeNamePrefix, "prefix of the node names")
	logLevel := flags.String("log-level", "info", "log level")
	realistic := flags.Bool("realistic", false, "run realistic alloc runners: the updates of mock_driver tasks with the delays below, state kept and restored")
	timings := runner.DefaultTimings
	flags.DurationVar(&timings.Setup, "setup-delay", timings.Setup, "realistic: from a task received to set up")
	flags.DurationVar(&timings.Start, "start-delay", timings.Start, "realistic: from a task set up to started")
	flags.DurationVar(&timings.Kill, "kill-delay", timings.Kill, "realistic: from a task killing to killed")
	iface := flags.String("network-interface", "", "the nodes' network_interface (default: the default route's)")
	statsInterval := flags.Duration("stats-interval", nodesim.DefaultStatsInterval, "how often each node collects the host's resource usage")
	httpAddr := flags.String("http", "", "serve the nodes' view of their allocations at http://`addr`"+nodesim.StatePath)
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *servers == "" || *dataDir == "" {
		fmt.Fprintln(os.Stderr, "nodesim: -servers and -data-dir are required")
		flags.Usage()
		return 2
	}

	logger := hclog.NewInterceptLogger(&hclog.LoggerOptions{
		Name:  "nodesim",
		Level: hclog.LevelFromString(*logLevel),
	})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	sim, err := nodesim.Start(&nodesim.Config{
		Servers:          strings.Split(*servers, ","),
		Nodes:            *nodes,
		DataDir:          *dataDir,
		Region:           *region,
		Datacenter:       *datacenter,
		NodeNamePrefix:   *namePrefix,
		Logger:           logger,
		Timings:          timingsOf(*realistic, timings),
		NetworkInterface: *iface,
		StatsInterval:    *statsInterval,
	})
	if err != nil {
		logger.Error("failed to start simulated nodes", "error", err)
		return 1
	}
	if *httpAddr != "" {
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			logger.Error("failed to serve the nodes' state", "error", err)
			_ = sim.Shutdown()
			return 1
		}
		srv := &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		logger.Info("serving the nodes' state", "url", "http://"+ln.Addr().String()+nodesim.StatePath)
	}

	<-ctx.Done()
	logger.Info("shutting down")
	if err := sim.Shutdown(); err != nil {
		logger.Error("failed to shut down simulated nodes", "error", err)
		return 1
	}
	return 0
}

// timingsOf returns the realistic runners' timings, or nil for instant ones.
func timingsOf(realistic bool, t runner.Timings) *runner.Timings {
	if !realistic {
		return nil
	}
	return &t
}
