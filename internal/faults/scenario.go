package faults

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
)

// ScenarioMain is the hidden scenario verb, run inside the sandbox with
// the flags Options.Args renders: it runs one scenario and prints its
// result as one line of JSON on stdout. It returns the exit code.
func ScenarioMain(args []string, stdout, stderr io.Writer) int {
	return experiment.HiddenMain(RunArg, args, stdout, stderr, ParseOptions, experiment.Recorded(RunScenario))
}

// run is one scenario run.
type run struct {
	opts  Options
	fault Fault
	log   io.Writer
	c     *cluster.Cluster
	// paused is the agent the fault stopped with SIGSTOP: nobody asks it
	// anything until it resumes.
	paused *cluster.Agent
	// lagging is the follower the stale-read scenario cut off: its
	// answers are stale, so the run asks the others.
	lagging *cluster.Agent
	// counters reads the server counters, summed over the servers.
	counters *experiment.Counters
	res      *Result
}

// RunScenario runs one scenario. It must run inside the sandbox. The
// result is never nil.
func RunScenario(ctx context.Context, opts Options, log io.Writer) (*Result, error) {
	res := &Result{Fault: opts.Fault, Label: opts.Label, Count: opts.Count}
	if f, err := LookupFault(opts.Fault); err == nil && f.Count > 0 {
		res.Count = f.Count
	}
	if f, err := LookupFault(opts.Fault); err == nil && f.Pair() {
		res.Upstream = opts.UpstreamLabel
	}
	start := time.Now()
	defer func() { res.TotalSeconds = time.Since(start).Seconds() }()
	f, err := LookupFault(opts.Fault)
	if err != nil {
		return res, err
	}
	v, err := experiment.Prepare(ctx, opts.Validate(), opts.DataRoot, opts.Nomad)
	res.Version = v.Line
	if err != nil {
		return res, err
	}
	r := &run{opts: opts, fault: f, log: log, res: res}
	err = r.run(ctx)
	if r.c != nil {
		if r.paused != nil {
			_ = r.paused.Resume()
		}
		r.c.Stop()
	}
	return res, err
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "    [%s %s] %s\n", r.opts.Label, r.opts.Fault, fmt.Sprintf(format, args...))
}

func (r *run) job(version int) *cluster.Job {
	j := cluster.ServiceJob(JobID, r.count(), version, r.opts.MaxParallel)
	j.TaskGroups[0].Update.MinHealthyTime = time.Second
	j.TaskGroups[0].Update.HealthyDeadline = 2 * time.Minute
	j.TaskGroups[0].Update.ProgressDeadline = 5 * time.Minute
	if d := r.fault.ProgressDeadline; d > 0 {
		j.TaskGroups[0].Update.ProgressDeadline = d
	}
	if d := r.fault.MaxClientDisconnect; d > 0 {
		j.TaskGroups[0].MaxClientDisconnect = &d
	}
	if d := r.fault.ShutdownDelay; d > 0 {
		j.TaskGroups[0].Tasks[0].ShutdownDelay = d
	}
	return j
}

func (r *run) run(ctx context.Context) error {
	if r.fault.Upgrade {
		return r.upgrade(ctx)
	}
	t0 := time.Now()
	c, err := cluster.Start(ctx, r.clusterSpec())
	if err != nil {
		return err
	}
	r.c = c
	r.logf("cluster of 3 servers and 3 clients ready in %.1fs", time.Since(t0).Seconds())
	r.counters = experiment.NewCounters()
	pctx, stopPolling := context.WithCancel(ctx)
	defer stopPolling()
	go r.counters.Run(pctx, c.Servers)

	if err := r.register(ctx, 0); err != nil {
		return err
	}
	if err := r.waitDeployment(ctx, 0, r.opts.PhaseTimeout); err != nil {
		return fmt.Errorf("initial deployment: %w", err)
	}
	r.logf("initial deployment of %d allocations successful", r.count())

	before := r.counters.Read(ctx, c.Servers, r.paused)
	if err := r.register(ctx, 1); err != nil {
		return err
	}
	if err := r.waitRolling(ctx); err != nil {
		return err
	}
	faultStart := time.Now()
	faultEnd, err := r.inject(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", r.fault.Name, err)
	}
	r.res.FaultSeconds = faultEnd.Sub(faultStart).Seconds()
	r.res.Load, _ = experiment.LoadAverage()
	r.logf("fault over after %.1fs", r.res.FaultSeconds)

	convergeErr := r.waitConverged(ctx, faultEnd)
	if convergeErr == nil {
		s := time.Since(faultEnd).Seconds()
		r.res.ConvergeSeconds = &s
		r.logf("converged %.1fs after the fault", s)
	} else {
		r.logf("did not converge: %v", convergeErr)
		r.res.Notes = append(r.res.Notes, "not converged: "+convergeErr.Error())
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(r.opts.Settle):
	}
	after := r.counters.Read(ctx, c.Servers, r.paused)
	r.res.RPCs = after[cluster.MetricUpdateAlloc] - before[cluster.MetricUpdateAlloc]
	r.res.RaftApplies = after[cluster.MetricRaftApply] - before[cluster.MetricRaftApply]
	if r.fault.Control {
		id, err := r.dropUpdate(ctx)
		if err != nil {
			return fmt.Errorf("dropping an update: %w", err)
		}
		r.res.ExpectedLost = []string{id}
	}
	if r.fault.Mixed {
		if err := r.checkMixed(ctx); err != nil {
			return err
		}
	}
	if err := r.check(ctx); err != nil {
		return err
	}
	if err := c.CheckAlive(); err != nil {
		return err
	}
	return nil
}

func (r *run) register(ctx context.Context, version int) error {
	return cluster.WaitFor(ctx, fmt.Sprintf("registering job version %d", version), 2*time.Minute, time.Second, func() (bool, error) {
		qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
		defer cancel()
		api, err := r.api(qctx)
		if err != nil {
			return false, err
		}
		return api.Register(qctx, r.job(version)) == nil, nil
	})
}

// api returns the API of a server that is running and not paused,
// preferring the leader.
func (r *run) api(ctx context.Context) (*cluster.Client, error) {
	var fallback *cluster.Client
	var errs []error
	for _, s := range r.c.Servers {
		if exited, _ := s.Exited(); exited || s == r.paused || s == r.lagging {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, experiment.QueryTimeout)
		addr, err := s.API.Leader(qctx)
		cancel()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if fallback == nil {
			fallback = s.API
		}
		for _, l := range r.c.Servers {
			if l.Spec.RPCAddr() == addr && l != r.paused && l != r.lagging {
				if exited, _ := l.Exited(); !exited {
					return l.API, nil
				}
			}
		}
	}
	if fallback != nil {
		return fallback, nil
	}
	return nil, fmt.Errorf("no server answers: %w", errors.Join(errs...))
}
