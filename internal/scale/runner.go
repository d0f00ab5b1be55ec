package scale

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Report is an invocation's results.
type Report struct {
	experiment.Header
	// Scenario is the invocation's, at its first size; Sizes the fleet
	// sizes (nil in a report of one size) and Rounds the rounds.
	Scenario Scenario          `json:"scenario"`
	Sizes    []int             `json:"sizes,omitempty"`
	Rounds   int               `json:"rounds,omitempty"`
	Servers  experiment.Binary `json:"servers"`
	Builds   []Build           `json:"builds"`
	Results  []Result          `json:"results"`
	Seconds  float64           `json:"seconds"`
}

// ReportFile is the JSON report in the results directory, rewritten after
// every run.
const ReportFile = "scale.json"

// Runner runs the scenario once per simulator build, fleet size and
// round, each in a fresh sandbox, one at a time: round by round, in each
// the sizes from the smallest, at each size every build in the order
// experiment.RoundOrder rotates (as the bench interleaves its binaries).
type Runner struct {
	Scenario Scenario
	// Sizes are the fleet sizes (none: the scenario's); Rounds the
	// rounds (at least 1). KeepMaxParallel keeps the scenario's
	// max_parallel at every size rather than a quarter of a job's count.
	Sizes           []int
	Rounds          int
	KeepMaxParallel bool
	// Servers is the servers' nomad binary.
	Servers experiment.Binary
	Builds  []Build
	// Dir is the results directory: runs/<label> per run.
	Dir string
	// Self is the tool's executable, re-run in each sandbox with RunArg.
	Self           string
	Command        string
	Stdout, Stderr io.Writer
}

// Run runs the scenario for every build. It returns the report (never
// nil); the error is for an interrupt or a failure to save.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	rep := &Report{
		Header: experiment.NewHeader(r.Command), Scenario: r.Scenario, Servers: r.Servers, Builds: r.Builds,
	}
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return rep, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return rep, err
	}
	plan := r.plan()
	if len(r.Sizes) > 0 {
		rep.Sizes = r.Sizes
		rep.Scenario = plan[0].Scenario
	}
	rep.Rounds = max(1, r.Rounds)
	start := time.Now()
	for i, cell := range plan {
		b := r.Builds[cell.build]
		o := Options{Scenario: cell.Scenario, Nodesim: b.Path, RunOptions: experiment.RunOptions{
			Nomad: r.Servers.Path, Label: b.Label, Dir: filepath.Join(dir, "runs", cell.dir(b.Label)), DataRoot: DefaultDataRoot}}
		what := fmt.Sprintf("run %d/%d: %s, %d nodes, %d allocations", i+1, len(plan), b.Label, o.Nodes, o.Allocs())
		if rep.Rounds > 1 {
			what += fmt.Sprintf(", round %d", cell.round)
		}
		fmt.Fprintf(r.Stdout, "==> %s\n", what)
		t0 := time.Now()
		res := r.runOne(ctx, o)
		if ctx.Err() != nil {
			return rep, fmt.Errorf("%w; the runs so far are in %s", ctx.Err(), filepath.Join(dir, ReportFile))
		}
		res.Round = cell.round
		status := "ok"
		if !res.OK() {
			status = "NOT OK"
		}
		fmt.Fprintf(r.Stdout, "    %s: %s in %s: %d checked, %d lost, %d jobs not converged\n", what, status,
			time.Since(t0).Round(time.Second), res.Check.Checked, len(res.Check.Lost), len(res.Check.Unconverged))
		if res.Error != "" {
			fmt.Fprintf(r.Stdout, "    error: %s (logs in %s)\n", res.Error, o.Dir)
		}
		rep.Results = append(rep.Results, *res)
		rep.Seconds = time.Since(start).Seconds()
		if err := rep.WriteJSON(filepath.Join(dir, ReportFile)); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// cell is one run of the plan: a build (its index) at a size in a round.
type cell struct {
	Scenario
	build, round int
	// multi is true when the invocation has several sizes or rounds: the
	// run's directory then names them.
	multi bool
}

// dir is the run's directory under runs/: the label, and with several
// sizes or rounds the size and round.
func (c cell) dir(label string) string {
	if !c.multi {
		return label
	}
	return fmt.Sprintf("%s-n%d-r%d", label, c.Nodes, c.round)
}

// plan returns the runs in order: round by round, the sizes from the
// smallest, the builds rotated each round.
func (r *Runner) plan() []cell {
	sizes := r.Sizes
	sized := len(sizes) > 0
	if !sized {
		sizes = []int{r.Scenario.Nodes}
	}
	rounds := max(1, r.Rounds)
	var out []cell
	for round := 1; round <= rounds; round++ {
		for _, n := range sizes {
			sc := r.Scenario
			if sized {
				sc = sc.Sized(n, r.KeepMaxParallel)
			}
			for _, i := range experiment.RoundOrder(round, len(r.Builds)) {
				out = append(out, cell{Scenario: sc, build: i, round: round, multi: len(sizes) > 1 || rounds > 1})
			}
		}
	}
	return out
}

// runOne runs the scenario in a fresh sandbox; the result is never nil.
func (r *Runner) runOne(ctx context.Context, o Options) *Result {
	return experiment.RunOne(ctx, append([]string{r.Self, RunArg}, o.Args()...), o.Limit(), o.Dir, r.Stderr,
		&Result{Label: o.Label, Nodes: o.Nodes, Allocs: o.Allocs(), Jobs: o.Jobs}, func(res *Result) *string { return &res.Error })
}

// WriteJSON saves the report atomically.
func (rep *Report) WriteJSON(path string) error { return atomicfile.WriteJSON(path, rep) }

// ReadReport reads a saved report.
func ReadReport(path string) (*Report, error) { return experiment.ReadReport[Report](path) }

// Failed counts the results that are not OK.
func (rep *Report) Failed() int { return experiment.NotOK(rep.Results) }
