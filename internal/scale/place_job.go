package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// The sandbox's placement cluster: a server and a client with raw_exec
// on hosts of their own on the bridge, a cluster apart from the one under
// test, which the job's simulator instances register with.
const (
	placeServerHost = "place-server"
	placeClientHost = "place-client"
	// JobID is the job's ID in the sandbox.
	JobID = "nodesim"
	// JobspecFile is the jobspec a run writes into its directory.
	JobspecFile = "nodesim.nomad.hcl"
)

// rawExecConfig enables raw_exec on the placement client. The sandbox
// hides the machine's cgroups (read-only), so the executor must not
// create one.
const rawExecConfig = `plugin "raw_exec" {
  config {
    enabled    = true
    no_cgroups = true
  }
}
`

// jobSims are the job's instances: their state APIs, their hosts, and
// the nodesim processes found on them.
type jobSims struct {
	instances []Instance
	hosts     []*cluster.Host
	nodesim   string // the binary, to find its processes
}

// pids are the running nodesim processes (every one in the sandbox runs
// an instance of the job).
func (j jobSims) pids() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == j.nodesim {
			out = append(out, pid)
		}
	}
	return out
}

func (j jobSims) memory() (cur, peak uint64, err error) {
	pids := j.pids()
	if len(pids) == 0 {
		return 0, 0, fmt.Errorf("no %s process", j.nodesim)
	}
	for _, pid := range pids {
		c, p, err := readRSS(pid)
		if err != nil {
			return 0, 0, err
		}
		cur, peak = cur+c, peak+p
	}
	return cur, peak, nil
}

func (j jobSims) cpu(procs experiment.ProcTable) experiment.CPU {
	var sum experiment.CPU
	for _, pid := range j.pids() {
		c := procs.CPUOf(pid)
		sum.Self += c.Self
		sum.Tree += c.Tree
	}
	return sum
}

func (j jobSims) links() (cluster.LinkCounters, error) {
	var sum cluster.LinkCounters
	for _, h := range j.hosts {
		c, err := h.Counters()
		if err != nil {
			return sum, err
		}
		sum.Sent, sum.Received = sum.Sent+c.Sent, sum.Received+c.Received
	}
	return sum, nil
}

func (j jobSims) stateURLs() []string {
	out := make([]string, len(j.instances))
	for i, in := range j.instances {
		out[i] = in.StateURL()
	}
	return out
}

// startPlacement starts the placement cluster on hosts of its own and
// waits for its leader and its client, with raw_exec healthy. It returns
// the placement cluster's API and its client's host.
func (r *run) startPlacement(ctx context.Context) (*PlaceAPI, *cluster.Host, error) {
	sh, err := r.c.AddHost(ctx, placeServerHost)
	if err != nil {
		return nil, nil, err
	}
	ch, err := r.c.AddHost(ctx, placeClientHost)
	if err != nil {
		return nil, nil, err
	}
	server := cluster.AgentSpec{
		Name: placeServerHost, Server: true, Host: sh, Addr: sh.Addr, HTTP: 4646, RPC: 4647, Serf: 4648, BootstrapExpect: 1,
		Dir: filepath.Join(r.opts.Dir, placeServerHost), Data: filepath.Join(r.opts.DataRoot, placeServerHost),
	}
	client := cluster.AgentSpec{
		Name: placeClientHost, Host: ch, Addr: ch.Addr, HTTP: 4646, RPC: 4647, Serf: 4648,
		ServerRPCs: []string{server.RPCAddr()}, NetworkInterface: "eth0",
		Drivers: []string{"raw_exec"}, Extra: rawExecConfig,
		Dir: filepath.Join(r.opts.Dir, placeClientHost), Data: filepath.Join(r.opts.DataRoot, placeClientHost),
	}
	s, err := r.c.StartAgent(server, r.opts.Nomad)
	if err != nil {
		return nil, nil, err
	}
	if _, err := r.c.StartAgent(client, r.opts.Nomad); err != nil {
		return nil, nil, err
	}
	err = cluster.WaitFor(ctx, "the placement cluster's client with raw_exec", r.opts.StartTimeout, 500*time.Millisecond, func() (bool, error) {
		if err := r.c.CheckAlive(); err != nil {
			return false, err
		}
		nodes, err := s.API.Nodes(ctx)
		if err != nil {
			return false, err
		}
		for _, n := range nodes {
			if d := n.Drivers["raw_exec"]; n.Status == "ready" && d != nil && d.Healthy {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return NewPlaceAPI(server.HTTPAddr(), ""), ch, nil
}

// jobspec is the run's job: its instances on the placement client,
// registering with the servers under test.
func (r *run) jobspec() Jobspec {
	var servers []string
	for _, s := range r.c.Servers {
		servers = append(servers, s.Spec.RPCAddr())
	}
	return Jobspec{
		ID: JobID, Datacenters: []string{"dc1"}, Instances: r.opts.K(), NodesPerInstance: r.opts.Nodes / r.opts.K(),
		Servers: servers, Command: r.opts.Nodesim, NetworkInterface: "eth0",
		Setup: r.opts.Setup, Start: r.opts.Start, Kill: r.opts.Kill,
	}
}

// placeJob writes the jobspec into the run's directory, submits it to
// the placement cluster and waits until every instance runs.
func (r *run) placeJob(ctx context.Context, api *PlaceAPI, host *cluster.Host) (simulators, error) {
	spec := r.jobspec()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	hcl := spec.HCL()
	if err := os.MkdirAll(r.opts.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.opts.Dir, JobspecFile), []byte(hcl), 0o644); err != nil {
		return nil, err
	}
	if _, err := api.Submit(ctx, hcl); err != nil {
		return nil, err
	}
	instances, err := waitInstances(ctx, api, spec, r.opts.StartTimeout, 500*time.Millisecond)
	if err != nil {
		return nil, err
	}
	r.logf("job %s: %d instances × %d nodes running", spec.ID, spec.Instances, spec.NodesPerInstance)
	bin, err := filepath.EvalSymlinks(r.opts.Nodesim)
	if err != nil {
		return nil, err
	}
	return jobSims{instances: instances, hosts: []*cluster.Host{host}, nodesim: bin}, nil
}

// saveJobLogs copies the instances' logs out of the placement client's
// data dir (a tmpfs that goes with the sandbox) into the run's directory.
func (r *run) saveJobLogs() {
	logs, _ := filepath.Glob(filepath.Join(r.opts.DataRoot, placeClientHost, "alloc", "*", "alloc", "logs", "nodesim.std*"))
	if len(logs) == 0 {
		return
	}
	dir := filepath.Join(r.opts.Dir, placeClientHost, "nodesim-logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.logf("saving the instances' logs: %v", err)
		return
	}
	for _, l := range logs {
		// .../alloc/<alloc ID>/alloc/logs/nodesim.stderr.0
		alloc := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(l))))
		if len(alloc) > 8 {
			alloc = alloc[:8]
		}
		data, err := os.ReadFile(l)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, alloc+"-"+filepath.Base(l)), data, 0o644)
		}
		if err != nil {
			r.logf("saving the instances' logs: %v", err)
		}
	}
}
