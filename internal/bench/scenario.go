package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// scenario is one run: a cluster, the event watch, the workloads.
type scenario struct {
	opts  Options
	log   io.Writer
	c     *cluster.Cluster
	watch *Watch
	// counters reads the server counters, summed over the servers.
	counters *experiment.Counters
}

// RunScenario starts one cluster and runs the options' workloads on it,
// one after the other, cleaning up between them. It must run inside the
// sandbox: it verifies the network namespace before it starts any agent,
// and the cluster checks every host's namespace before it starts any
// agent there. A workload that fails is recorded in its result and the
// next one still runs (on a cleaned cluster); the error is the first
// failure.
func RunScenario(ctx context.Context, opts Options, log io.Writer) (*RoundRun, error) {
	if opts.DataRoot == "" {
		opts.DataRoot = DefaultDataRoot
	}
	v, err := experiment.Prepare(ctx, opts.Validate(), opts.DataRoot, opts.Nomad)
	if err != nil {
		return nil, err
	}
	run := &RoundRun{Label: opts.Label, Round: opts.Round, Binary: opts.Nomad,
		Topology: string(opts.Topology), Started: time.Now(), Version: v.Line, Revision: v.Revision}
	s := &scenario{opts: opts, log: log}
	err = s.run(ctx, run)
	if s.c != nil {
		s.c.Stop()
	}
	run.TotalSeconds = time.Since(run.Started).Seconds()
	return run, err
}

func (s *scenario) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "    [%s r%d %s] %s\n", s.opts.Label, s.opts.Round, s.opts.Topology, fmt.Sprintf(format, args...))
}

func (s *scenario) run(ctx context.Context, run *RoundRun) error {
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Spec{
		Topology: s.opts.Topology, Nomad: s.opts.Nomad, Dir: s.opts.Dir, DataRoot: s.opts.DataRoot,
		Clients: s.opts.Clients, StartTimeout: s.opts.StartTimeout, Log: s.log,
	})
	if err != nil {
		return err
	}
	s.c = c
	run.StartupSeconds = time.Since(start).Seconds()
	s.logf("cluster of %d server(s) and %d clients ready in %.1fs", len(c.Servers), len(c.Clients), run.StartupSeconds)

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	s.watch = NewWatch()
	go s.watch.Follow(wctx, c)
	s.counters = experiment.NewCounters()
	go s.counters.Run(wctx, c.Servers)

	var first error
	for i, name := range s.opts.Workloads {
		w, ok := WorkloadByName(name)
		if !ok {
			return fmt.Errorf("unknown workload %q", name)
		}
		env := &Env{C: c, Watch: s.watch, N: s.opts.Size(name), Settle: s.opts.Settle, Timeout: s.opts.PhaseTimeout,
			Snapshot: s.snapshot, Logf: s.logf}
		t0 := time.Now()
		res, err := w.Run(ctx, env)
		res.Name, res.N = name, env.N
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			res.Error = err.Error()
			s.logf("%s: FAILED: %v", name, err)
			if first == nil {
				first = fmt.Errorf("%s: %w", name, err)
			}
		} else {
			floor := 0.0
			if res.Floor != nil {
				floor = *res.Floor
			}
			s.logf("%s (N=%d): %s %.2fs, %.0f Node.UpdateAlloc RPCs (floor %.0f), in %.0fs",
				name, env.N, res.Latency, res.Seconds, res.Total(func(p *experiment.Phase) float64 { return p.UpdateAllocRPCs }), floor, time.Since(t0).Seconds())
		}
		run.Workloads = append(run.Workloads, res)
		if sn, err := s.snapshot(ctx); err == nil {
			run.LoadAvg = append(run.LoadAvg, sn.Load1)
		}
		if i < len(s.opts.Workloads)-1 {
			if err := env.Cleanup(ctx); err != nil {
				return errors.Join(first, fmt.Errorf("cleaning up after %s: %w", name, err))
			}
		}
		if err := c.CheckAlive(); err != nil {
			return errors.Join(first, err)
		}
	}
	return first
}

// snapshot reads the servers' counters (summed over the servers), the
// clients' fork metrics and link counters, the agents' CPU times, the load
// average and the allocations' ClientStatus transitions.
func (s *scenario) snapshot(ctx context.Context) (experiment.Snapshot, error) {
	sn, leader, err := experiment.StartSnapshot(ctx, s.c, s.counters)
	if err != nil {
		return sn, err
	}

	// The clients' links count their traffic to the servers; the bench's
	// own scrapes of the clients pass the same links, so the counters are
	// read on both sides of the scrapes and a phase counts from after one
	// snapshot's scrapes to before the next one's.
	links := !s.c.Clients[0].Spec.Host.Shared()
	readLinks := func() (cluster.LinkCounters, error) {
		var sum cluster.LinkCounters
		for _, a := range s.c.Clients {
			lc, err := a.Spec.Host.Counters()
			if err != nil {
				return sum, fmt.Errorf("%s link counters: %w", a.Spec.Name, err)
			}
			sum.Sent += lc.Sent
			sum.Received += lc.Received
		}
		return sum, nil
	}
	if links {
		before, err := readLinks()
		if err != nil {
			return sn, err
		}
		sn.LinksBefore = &before
	}
	cms := make([]cluster.Metrics, len(s.c.Clients))
	errs := make([]error, len(s.c.Clients))
	var wg sync.WaitGroup
	for i, c := range s.c.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cms[i], errs[i] = c.API.Metrics(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return sn, fmt.Errorf("client metrics: %w", err)
	}
	if links {
		after, err := readLinks()
		if err != nil {
			return sn, err
		}
		sn.LinksAfter = &after
	}
	sn.ClientRPCs, sn.ClientSent, sn.ClientBuffered = cluster.SumClientMetrics(cms)

	procs, err := experiment.ReadProcTable("/proc")
	if err != nil {
		return sn, err
	}
	sn.SetServerCPU(procs, s.c.Servers, leader)
	for _, a := range s.c.Clients {
		cpu := procs.CPUOf(a.PID())
		sn.ClientCPU.Self += cpu.Self
		sn.ClientCPU.Tree += cpu.Tree
	}

	if s.watch != nil {
		var allocs []cluster.AllocStub
		for _, r := range s.watch.Allocs(func(string) bool { return true }) {
			allocs = append(allocs, r.Last)
		}
		sn.Transitions = experiment.Transitions(allocs)
	}
	return sn, nil
}
