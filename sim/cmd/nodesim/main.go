// Command nodesim runs simulated Nomad client nodes against Nomad servers.
//
// Usage:
//
//	nodesim -servers 10.0.0.1:4647,10.0.0.2:4647 -nodes 100 -data-dir /var/lib/nodesim
//
// The nodes run no tasks: their allocations are reported running until the
// servers stop them. Jobs placed on them must use the "mock_driver" task
// driver; the constraint ${meta.nodesim} = "true" selects them.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	hclog "github.com/hashicorp/go-hclog"

	"github.com/nomad-client-fork/nomad-client-fork/sim/nodesim"
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
		Servers:        strings.Split(*servers, ","),
		Nodes:          *nodes,
		DataDir:        *dataDir,
		Region:         *region,
		Datacenter:     *datacenter,
		NodeNamePrefix: *namePrefix,
		Logger:         logger,
	})
	if err != nil {
		logger.Error("failed to start simulated nodes", "error", err)
		return 1
	}

	<-ctx.Done()
	logger.Info("shutting down")
	if err := sim.Shutdown(); err != nil {
		logger.Error("failed to shut down simulated nodes", "error", err)
		return 1
	}
	return 0
}
