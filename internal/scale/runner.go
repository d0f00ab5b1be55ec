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
	Scenario Scenario          `json:"scenario"`
	Servers  experiment.Binary `json:"servers"`
	Builds   []Build           `json:"builds"`
	Results  []Result          `json:"results"`
	Seconds  float64           `json:"seconds"`
}

// ReportFile is the JSON report in the results directory, rewritten after
// every run.
const ReportFile = "scale.json"

// Runner runs the scenario once per simulator build, each in a fresh
// sandbox, one at a time.
type Runner struct {
	Scenario Scenario
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
	start := time.Now()
	for i, b := range r.Builds {
		o := Options{Scenario: r.Scenario, Nodesim: b.Path, RunOptions: experiment.RunOptions{
			Nomad: r.Servers.Path, Label: b.Label, Dir: filepath.Join(dir, "runs", b.Label), DataRoot: DefaultDataRoot}}
		what := fmt.Sprintf("run %d/%d: %s, %d nodes, %d allocations", i+1, len(r.Builds), b.Label, r.Scenario.Nodes, r.Scenario.Allocs())
		fmt.Fprintf(r.Stdout, "==> %s\n", what)
		t0 := time.Now()
		res := r.runOne(ctx, o)
		if ctx.Err() != nil {
			return rep, fmt.Errorf("%w; the runs so far are in %s", ctx.Err(), filepath.Join(dir, ReportFile))
		}
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
