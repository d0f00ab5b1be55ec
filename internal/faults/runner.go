package faults

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// Report is an invocation's results.
type Report struct {
	experiment.Header
	Count    int                 `json:"count"`
	Binaries []experiment.Binary `json:"binaries"`
	Faults   []string            `json:"faults"`
	Results  []Result            `json:"results"`
	Seconds  float64             `json:"seconds"`
}

// Runner runs every scenario for every binary, each run in a fresh
// sandbox, one at a time.
type Runner struct {
	Options  Options // the scenario options; Fault, Nomad, Label and Dir are set per run
	Faults   []Fault
	Binaries []experiment.Binary
	// Upstream is the pinned version's unpatched binary, which the upgrade
	// and mixed scenarios run beside each tested binary (the fork and the
	// variants); without it they are skipped with a note.
	Upstream *experiment.Binary
	// Dir is the results directory: runs/<fault>-<label> per run.
	Dir string
	// Self is the tool's executable, re-run in each sandbox with RunArg.
	Self           string
	Command        string
	Stdout, Stderr io.Writer
}

// ReportFile is the JSON report in the results directory, rewritten after
// every run.
const ReportFile = "faults.json"

// Run runs the scenarios. It returns the report (never nil); the error is
// for an interrupt or a failure to save.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	rep := &Report{
		Header: experiment.NewHeader(r.Command), Count: r.Options.Count, Binaries: r.Binaries,
	}
	for _, f := range r.Faults {
		rep.Faults = append(rep.Faults, f.Name)
	}
	if r.Upstream != nil && !hasLabel(rep.Binaries, r.Upstream.Label) {
		rep.Binaries = append(append([]experiment.Binary(nil), rep.Binaries...), *r.Upstream)
	}
	// Agents run in their own directories: every path they get is absolute.
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return rep, err
	}
	r.Dir = dir
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return rep, err
	}
	start := time.Now()
	total := 0
	for _, f := range r.Faults {
		total += len(r.binariesOf(f))
	}
	for _, f := range r.Faults {
		if f.Pair() && r.Upstream == nil {
			fmt.Fprintf(r.Stdout, "note: %s skipped: it needs the unpatched upstream binary\n", f.Name)
			continue
		}
		for _, bin := range r.binariesOf(f) {
			o := r.Options
			o.Fault, o.Nomad, o.Label = f.Name, bin.Path, bin.Label
			if f.Pair() {
				o.Upstream, o.UpstreamLabel = r.Upstream.Path, r.Upstream.Label
			}
			o.Dir = filepath.Join(r.Dir, "runs", f.Name+"-"+bin.Label)
			what := fmt.Sprintf("run %d/%d: %s, %s", len(rep.Results)+1, total, f.Name, bin.Label)
			fmt.Fprintf(r.Stdout, "==> %s\n", what)
			t0 := time.Now()
			res := r.runOne(ctx, o)
			if ctx.Err() != nil {
				return rep, fmt.Errorf("%w; the runs so far are in %s", ctx.Err(), filepath.Join(r.Dir, ReportFile))
			}
			status := "ok"
			if !res.OK() {
				status = "NOT OK"
			}
			if f.Upgrade {
				fmt.Fprintf(r.Stdout, "    %s: %s in %s: %s; %d lost, %d duplicate runs\n", what, status,
					time.Since(t0).Round(time.Second), stepsSummary(res.Steps), len(res.Lost), len(res.Duplicates))
			} else {
				fmt.Fprintf(r.Stdout, "    %s: %s in %s: %d lost, %d duplicate runs, %d re-run after a failed restore, converged %s\n", what, status,
					time.Since(t0).Round(time.Second), len(res.Lost), len(res.Duplicates), len(res.Rerun), seconds(res.ConvergeSeconds))
			}
			if res.Error != "" {
				fmt.Fprintf(r.Stdout, "    error: %s (agent logs in %s)\n", res.Error, o.Dir)
			}
			rep.Results = append(rep.Results, *res)
			rep.Seconds = time.Since(start).Seconds()
			if err := rep.WriteJSON(filepath.Join(r.Dir, ReportFile)); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// binariesOf returns the binaries the scenario runs for: every one, but
// for a pair scenario only the tested ones (the fork and the variants),
// each beside Upstream.
func (r *Runner) binariesOf(f Fault) []experiment.Binary {
	if !f.Pair() {
		return r.Binaries
	}
	if r.Upstream == nil {
		return nil
	}
	var out []experiment.Binary
	for _, b := range r.Binaries {
		if b.Label == experiment.ForkLabel || b.Variant {
			out = append(out, b)
		}
	}
	return out
}

func hasLabel(bins []experiment.Binary, label string) bool {
	for _, b := range bins {
		if b.Label == label {
			return true
		}
	}
	return false
}

// stepsSummary sums up an upgrade run's swaps on one line.
func stepsSummary(steps []UpgradeStep) string {
	if len(steps) == 0 {
		return "no swap made"
	}
	var parts []string
	for _, s := range steps {
		parts = append(parts, fmt.Sprintf("%s → %s: %d/%d allocations kept, %d/%d same PIDs, %d restore errors", s.From, s.To, s.Kept, s.Allocs, s.SamePIDs, s.Tasks, len(s.LogErrors)))
	}
	return strings.Join(parts, "; ")
}

// runOne runs one scenario in a fresh sandbox; the result is never nil.
func (r *Runner) runOne(ctx context.Context, o Options) *Result {
	return experiment.RunOne(ctx, append([]string{r.Self, RunArg}, o.Args()...), o.Limit(), o.Dir, r.Stderr,
		&Result{Fault: o.Fault, Label: o.Label, Count: o.Count}, func(res *Result) *string { return &res.Error })
}

// WriteJSON saves the report atomically.
func (rep *Report) WriteJSON(path string) error { return atomicfile.WriteJSON(path, rep) }

// ReadReport reads a saved report.
func ReadReport(path string) (*Report, error) { return experiment.ReadReport[Report](path) }

// Failed counts the results that are not OK.
func (rep *Report) Failed() int { return experiment.NotOK(rep.Results) }

func seconds(s *float64) string {
	if s == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs", *s)
}
