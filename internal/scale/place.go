package scale

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// Where the simulated nodes run.
const (
	// PlaceProcess is one nodesim process of all the nodes on a host of
	// its own (the default).
	PlaceProcess = "process"
	// PlaceJob is nodesim instances placed by a Nomad job on a separate
	// placement cluster (in the sandbox: its own server and client hosts
	// on the bridge), as hashicorp-forge/nomad-nodesim runs.
	PlaceJob = "job"
)

// DefaultInstances is -instances' default with -place job.
const DefaultInstances = 2

// Placement is where a run's simulated nodes run.
type Placement struct {
	// Place is PlaceProcess ("" too) or PlaceJob.
	Place string `json:"place,omitempty"`
	// Instances is the job's nodesim instances (-place job); the nodes
	// are split evenly over them. 0 is DefaultInstances.
	Instances int `json:"instances,omitempty"`
}

// Flags declares the placement's flags on fs.
func (p *Placement) Flags(fs *flag.FlagSet) {
	fs.StringVar(&p.Place, "place", p.Place, "where the simulated nodes run: `process` (one nodesim on a host of its own) or job (nodesim instances placed by a Nomad job on a separate placement cluster)")
	fs.IntVar(&p.Instances, "instances", p.Instances, "-place job: nodesim `instances` (default 2); -n nodes are split evenly over them")
}

// Job reports whether the nodes are placed by a Nomad job.
func (p Placement) Job() bool { return p.Place == PlaceJob }

// K is the number of nodesim instances: 1 for a process.
func (p Placement) K() int {
	switch {
	case !p.Job():
		return 1
	case p.Instances == 0:
		return DefaultInstances
	}
	return p.Instances
}

// Where says where the nodes run, for the report.
func (p Placement) Where() string {
	if !p.Job() {
		return "in one process"
	}
	return fmt.Sprintf("in %d nodesim instances placed by a Nomad job on a placement cluster", p.K())
}

// Validate checks the placement of nodes simulated nodes.
func (p Placement) Validate(nodes int) error {
	switch p.Place {
	case "", PlaceProcess:
		if p.Instances > 1 {
			return fmt.Errorf("-instances %d needs -place %s", p.Instances, PlaceJob)
		}
		return nil
	case PlaceJob:
	default:
		return fmt.Errorf("-place %q: want %s or %s", p.Place, PlaceProcess, PlaceJob)
	}
	if p.Instances < 0 {
		return errors.New("-instances must not be negative")
	}
	if k := p.K(); nodes%k != 0 {
		return fmt.Errorf("-n %d nodes do not split evenly over %d instances", nodes, k)
	}
	return nil
}

// JobFlags are the flags of simulators placed by a Nomad job on an
// operator's own clusters: the tool writes the jobspec (-jobspec-only)
// or submits it to the placement cluster at -place-addr, and runs nothing
// in the sandbox.
type JobFlags struct {
	// Addr is the placement cluster's HTTP API; the ACL token is
	// NOMAD_TOKEN's.
	Addr string
	// Servers are the RPC addresses of the servers under test; ServersHTTP
	// the HTTP API of one of them, where -place-addr waits for the nodes.
	Servers, ServersHTTP string
	// JobspecOnly prints the jobspec and submits nothing.
	JobspecOnly bool
	// ID, Datacenters, Command, Artifact and NetworkInterface are the
	// jobspec's (see Jobspec).
	ID, Datacenters, Command, Artifact, NetworkInterface string
}

// DefaultJobCommand is where -place job expects nodesim on an operator's
// placement clients.
const DefaultJobCommand = "/usr/local/bin/nodesim"

// Flags declares the flags on fs.
func (j *JobFlags) Flags(fs *flag.FlagSet) {
	fs.StringVar(&j.Addr, "place-addr", "", "-place job on your own clusters: the placement cluster's HTTP `address`, where the job is submitted (ACL token: NOMAD_TOKEN); nothing runs in the sandbox")
	fs.StringVar(&j.Servers, "servers", "", "-place job on your own clusters: the servers under test, comma-separated RPC `addresses` (host:4647), run with limits { rpc_max_conns_per_client = 0 }")
	fs.StringVar(&j.ServersHTTP, "servers-http", "", "-place job with -place-addr: a server under test's HTTP `address`, where the tool waits until every simulated node is ready (ACL token: NOMAD_TOKEN)")
	fs.BoolVar(&j.JobspecOnly, "jobspec-only", false, "-place job: print the jobspec for -servers and submit nothing")
	fs.StringVar(&j.ID, "job-id", "nodesim", "-place job on your own clusters: the job's `ID`")
	fs.StringVar(&j.Datacenters, "datacenters", "dc1", "-place job on your own clusters: the job's comma-separated `datacenters`")
	fs.StringVar(&j.Command, "nodesim-command", DefaultJobCommand, "-place job on your own clusters: nodesim's `path` on the placement clients (or its file name with -nodesim-artifact)")
	fs.StringVar(&j.Artifact, "nodesim-artifact", "", "-place job on your own clusters: a `URL` the job downloads nodesim from")
	fs.StringVar(&j.NetworkInterface, "network-interface", "", "-place job on your own clusters: the simulated nodes' `interface` (default: the default route's)")
}

// Operator reports whether the flags ask for the operator's mode (a
// jobspec, or a job submitted to a placement cluster) rather than a run.
func (j JobFlags) Operator() bool { return j.JobspecOnly || j.Addr != "" }

// Jobspec is the job of sc's nodes for the flags' clusters.
func (j JobFlags) Jobspec(sc Scenario) Jobspec {
	return Jobspec{
		ID: j.ID, Datacenters: splitList(j.Datacenters), Instances: sc.K(), NodesPerInstance: sc.Nodes / sc.K(),
		Servers: splitList(j.Servers), Command: j.Command, Artifact: j.Artifact, NetworkInterface: j.NetworkInterface,
		Setup: sc.Setup, Start: sc.Start, Kill: sc.Kill,
	}
}

// Validate checks the flags against the scenario.
func (j JobFlags) Validate(sc Scenario) error {
	if !j.Operator() {
		if j.Servers != "" || j.ServersHTTP != "" {
			return errors.New("-servers and -servers-http need -jobspec-only or -place-addr (a run in the sandbox has its own servers)")
		}
		return nil
	}
	if j.ServersHTTP != "" && j.Addr == "" {
		return errors.New("-servers-http needs -place-addr")
	}
	if !sc.Job() {
		return fmt.Errorf("-jobspec-only and -place-addr need -place %s", PlaceJob)
	}
	if err := sc.Placement.Validate(sc.Nodes); err != nil {
		return err
	}
	if strings.TrimSpace(j.Servers) == "" {
		return errors.New("-servers is required with -jobspec-only or -place-addr: the RPC addresses of the servers under test (host:port,...)")
	}
	return j.Jobspec(sc).Validate()
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// RunOperator is -place job on an operator's clusters: it prints the
// jobspec (-jobspec-only), or submits it to the placement cluster and
// waits until every instance runs, then prints where each serves its
// nodes' view. The servers under test are the operator's to watch.
func RunOperator(ctx context.Context, sc Scenario, j JobFlags, stdout io.Writer) error {
	if err := j.Validate(sc); err != nil {
		return err
	}
	spec := j.Jobspec(sc)
	hcl := spec.HCL()
	if j.JobspecOnly {
		_, err := io.WriteString(stdout, hcl)
		return err
	}
	api := NewPlaceAPI(j.Addr, os.Getenv("NOMAD_TOKEN"))
	eval, err := api.Submit(ctx, hcl)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "==> job %s registered on %s (evaluation %s): %d instances × %d nodes\n", spec.ID, api.Addr, eval, spec.Instances, spec.NodesPerInstance)
	instances, err := waitInstances(ctx, api, spec, sc.StartTimeout, 2*time.Second)
	if err != nil {
		return err
	}
	for _, in := range instances {
		fmt.Fprintf(stdout, "    %s: %s\n", in.Name, in.StateURL())
	}
	if j.ServersHTTP != "" {
		want := spec.Instances * spec.NodesPerInstance
		under := NewPlaceAPI(j.ServersHTTP, os.Getenv("NOMAD_TOKEN"))
		t0 := time.Now()
		err := cluster.WaitFor(ctx, fmt.Sprintf("%d ready nodes on %s", want, under.Addr), sc.StartTimeout, 2*time.Second, func() (bool, error) {
			n, err := under.ReadyNodes(ctx)
			return n >= want, err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "==> %d simulated nodes ready on %s after %s\n", want, under.Addr, time.Since(t0).Round(time.Second))
	}
	fmt.Fprintf(stdout, "==> the nodes named %s<instance>-<n> register with %s; `nomad job stop -purge %s` on the placement cluster ends them\n",
		JobNodePrefix, strings.Join(spec.Servers, ", "), spec.ID)
	return nil
}

// waitInstances waits until the job's instances all run; a failed one
// ends the wait at once.
func waitInstances(ctx context.Context, api *PlaceAPI, spec Jobspec, timeout, interval time.Duration) ([]Instance, error) {
	var instances []Instance
	var failed error
	err := cluster.WaitFor(ctx, fmt.Sprintf("%d running simulator instances", spec.Instances), timeout, interval, func() (bool, error) {
		in, ok, err := api.Running(ctx, spec.ID, spec.Instances)
		if errors.Is(err, errInstanceFailed) {
			failed = err
			return true, nil
		}
		instances = in
		return ok, err
	})
	if failed != nil {
		return nil, failed
	}
	return instances, err
}
