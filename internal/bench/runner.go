package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment/cluster"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
)

// RunArg is the hidden first argument with which the bench re-executes the
// tool inside a sandbox to run one scenario; the tool's main function calls
// ScenarioMain when it sees it.
const RunArg = "__bench-run"

// ScenarioMain is the hidden scenario verb, run inside the sandbox with the
// flags Options.Args renders: it runs the scenario once and prints its
// result as one line of JSON on stdout. It returns the exit code.
func ScenarioMain(args []string, stdout, stderr io.Writer) int {
	return experiment.HiddenMain(RunArg, args, stdout, stderr, ParseOptions, recordedScenario)
}

// recordedScenario runs the scenario and records its error in the run.
func recordedScenario(ctx context.Context, opts Options, log io.Writer) (*RoundRun, error) {
	run, err := RunScenario(ctx, opts, log)
	if run == nil {
		run = &RoundRun{Label: opts.Label, Round: opts.Round, Binary: opts.Nomad, Topology: string(opts.Topology)}
	}
	if err != nil {
		run.Error = err.Error()
	}
	return run, err
}

// PartialFile is the report the runner rewrites after every run, in the
// results directory.
const PartialFile = "bench.partial.json"

// Runner runs the scenario for every binary on every topology, round by
// round.
type Runner struct {
	Scenario   Scenario
	Topologies []cluster.Topology
	Rounds     int
	Binaries   []experiment.Binary
	// Dir is the results directory: runs/<label>-r<round> per run.
	Dir   string
	Retry bool
	// Warmup runs the first binary once before the first round, not
	// counted: the first run of an invocation is slower (cold caches).
	Warmup bool
	// Self is the tool's executable, re-run in each sandbox with RunArg.
	Self    string
	Command string
	// Base, Fork and Ref are the labels of the unpatched pinned version,
	// the fork and the newer upstream version.
	Base, Fork, Ref string
	Stdout, Stderr  io.Writer
}

// Run runs every binary once per round, the order rotated each round so no
// binary always runs first, each run in a fresh sandbox. It returns the
// report (never nil) and the number of runs that failed; the error is for
// an interrupt or a failure to run at all.
func (r *Runner) Run(ctx context.Context) (*Report, int, error) {
	rep := &Report{
		Header:    experiment.NewHeader(r.Command),
		Rounds:    r.Rounds,
		Settle:    r.Scenario.Settle.String(),
		Clients:   r.Scenario.Clients,
		Workloads: r.Scenario.Workloads,
		Counters:  CountersSummed,
		Sizes:     Sizes{},
		Base:      r.Base, Fork: r.Fork, Ref: r.Ref,
		Binaries: append([]experiment.Binary(nil), r.Binaries...),
	}
	for _, w := range r.Scenario.Workloads {
		rep.Sizes[w] = r.Scenario.Size(w)
	}
	for _, t := range r.Topologies {
		rep.Topologies = append(rep.Topologies, string(t))
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return rep, 0, err
	}
	start := time.Now()
	if r.Warmup && len(r.Binaries) > 0 {
		warm, err := r.warmup(ctx, r.Binaries[0])
		if ctx.Err() != nil {
			return rep, 0, fmt.Errorf("%w during the warm-up run", ctx.Err())
		}
		if err != nil {
			fmt.Fprintf(r.Stdout, "    warm-up: FAILED: %v (not counted either way)\n", err)
		}
		rep.Warmup = warm
	}
	total := r.Rounds * len(r.Topologies) * len(r.Binaries)
	failed := 0
	for round := 1; round <= r.Rounds; round++ {
		for _, topo := range r.Topologies {
			for _, i := range experiment.RoundOrder(round, len(r.Binaries)) {
				bin := r.Binaries[i]
				run, err := r.runOne(ctx, bin, topo, round, len(rep.Runs)+1, total)
				if err != nil {
					return rep, failed, err
				}
				if run.Error != "" {
					failed++
				}
				rep.Runs = append(rep.Runs, *run)
				// Keep what is measured so far: an interrupted bench can be
				// redrawn with -from.
				rep.Seconds = time.Since(start).Seconds()
				rep.fillBinaryVersions()
				if err := rep.WriteJSON(filepath.Join(r.Dir, PartialFile)); err != nil {
					fmt.Fprintf(r.Stderr, "warning: saving the runs so far: %v\n", err)
				}
			}
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.fillBinaryVersions()
	return rep, failed, nil
}

// runOne runs bin on topo once (run n of total), retried once when it
// fails and r.Retry. The error is for an interrupt only.
func (r *Runner) runOne(ctx context.Context, bin experiment.Binary, topo cluster.Topology, round, n, total int) (*RoundRun, error) {
	what := fmt.Sprintf("run %d/%d: %s, round %d, %s", n, total, bin.Label, round, topo)
	var run *RoundRun
	var err error
	defer progress.Begin(what)() // for an interruption's message
	for attempt := 1; attempt <= 2; attempt++ {
		dir := filepath.Join(r.Dir, "runs", fmt.Sprintf("%s-%s-r%d", bin.Label, topo, round))
		sc := r.Scenario
		sc.Topology = topo
		opts := Options{Scenario: sc, Round: round, RunOptions: experiment.RunOptions{Nomad: bin.Path, Label: bin.Label, Dir: dir, DataRoot: DefaultDataRoot}}
		fmt.Fprintf(r.Stdout, "==> %s\n", what)
		t0 := time.Now()
		run, err = r.runInSandbox(ctx, opts)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w; the runs so far are in %s: redraw them with -from", ctx.Err(), filepath.Join(r.Dir, PartialFile))
		}
		run.Attempt = attempt
		if err == nil {
			fmt.Fprintf(r.Stdout, "    %s: done in %s (load %.1f)\n", what, time.Since(t0).Round(time.Second), run.MaxLoad())
			return run, nil
		}
		run.Error = err.Error()
		if r.Retry && attempt == 1 {
			// Keep the failed attempt's logs beside the retry's.
			failedDir := dir + ".failed"
			_ = os.RemoveAll(failedDir)
			if os.Rename(dir, failedDir) == nil {
				dir = failedDir
			}
		}
		fmt.Fprintf(r.Stdout, "    %s: FAILED in %s: %v (agent logs in %s)\n", what, time.Since(t0).Round(time.Second), err, dir)
		if !r.Retry {
			break
		}
	}
	return run, nil
}

// warmup runs the scenario once for bin on the first topology, in
// runs/warmup, for the report's Warmup: never counted, never retried.
func (r *Runner) warmup(ctx context.Context, bin experiment.Binary) (*RoundRun, error) {
	sc := r.Scenario
	sc.Topology = r.Topologies[0]
	opts := Options{Scenario: sc, RunOptions: experiment.RunOptions{Nomad: bin.Path, Label: bin.Label, Dir: filepath.Join(r.Dir, "runs", "warmup"), DataRoot: DefaultDataRoot}}
	what := fmt.Sprintf("warm-up run: %s, %s (not counted)", bin.Label, sc.Topology)
	defer progress.Begin(what)()
	fmt.Fprintf(r.Stdout, "==> %s\n", what)
	t0 := time.Now()
	run, err := r.runInSandbox(ctx, opts)
	if err != nil {
		run.Error = err.Error()
		return run, err
	}
	fmt.Fprintf(r.Stdout, "    warm-up run: done in %s (load %.1f)\n", time.Since(t0).Round(time.Second), run.MaxLoad())
	return run, nil
}

// runInSandbox runs one scenario in a new sandbox and decodes the result
// it prints. The returned run is never nil.
func (r *Runner) runInSandbox(ctx context.Context, o Options) (*RoundRun, error) {
	run := &RoundRun{Label: o.Label, Round: o.Round, Binary: o.Nomad, Topology: string(o.Topology)}
	if err := os.RemoveAll(o.Dir); err != nil {
		return run, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return run, err
	}
	load0, _ := experiment.LoadAverage()
	busy0, _ := experiment.BusySeconds()
	t0 := time.Now()
	var got RoundRun
	decoded := false
	state, runErr := experiment.InSandbox(ctx, append([]string{r.Self, RunArg}, o.Args()...), o.Limit(), r.Stderr, func(line []byte) error {
		if err := json.Unmarshal(line, &got); err != nil {
			return fmt.Errorf("decoding the scenario's result: %w", err)
		}
		decoded = true
		return nil
	})
	if ctx.Err() != nil {
		return run, ctx.Err()
	}
	wall := time.Since(t0).Seconds()
	if decoded {
		run = &got
	}
	run.LoadAvg = append([]float64{load0}, run.LoadAvg...)
	// The sandbox's init reaps every process of the run, so its rusage
	// (through unshare's) is the run's whole CPU time.
	if busy1, err := experiment.BusySeconds(); err == nil && busy0 > 0 && state != nil && wall > 0 {
		own := (state.UserTime() + state.SystemTime()).Seconds()
		other := (busy1 - busy0 - own) / wall
		if other < 0 {
			other = 0
		}
		run.OtherCores = &other
	}
	if runErr != nil {
		if run.Error != "" {
			return run, errors.New(run.Error)
		}
		return run, fmt.Errorf("scenario: %w", runErr)
	}
	if run.Error != "" {
		return run, errors.New(run.Error)
	}
	return run, nil
}
