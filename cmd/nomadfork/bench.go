package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/mod/semver"

	"github.com/nomad-client-fork/nomad-client-fork/internal/bench"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/upstream"
)

// benchRunArg is the hidden first argument with which bench re-executes the
// tool inside a sandbox to run one scenario; main dispatches it.
const benchRunArg = "__bench-run"

const benchUsage = "[-quick] [-n count] [-r rounds] [-versions list] [-variant name=path]... [-settle d] [-o dir]"

// variantFlag collects -variant name=path.
type variantFlag []struct{ name, path string }

func (v *variantFlag) String() string { return "" }

func (v *variantFlag) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want name=/path/to/nomad, got %q", s)
	}
	*v = append(*v, struct{ name, path string }{name, path})
	return nil
}

func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", benchUsage)
	quick := fs.Bool("quick", false, "smoke test: N=30, R=1, base and fork only, output in <o>/quick")
	count := fs.Int("n", 300, "the job's `count`")
	rounds := fs.Int("r", 3, "`rounds`: runs of each version, interleaved")
	versions := fs.String("versions", "", "comma-separated `labels` to run: the pinned version (unpatched), fork, upstream versions such as "+bench.RefVersion+" (default: the pinned version, fork, "+bench.RefVersion+"; -quick: the first two)")
	var variants variantFlag
	fs.Var(&variants, "variant", "also run `name=path`, a nomad binary built elsewhere, labelled name (repeatable)")
	settle := fs.Duration("settle", 5*time.Second, "wait after the rolling deployment before the last reading")
	phaseTimeout := fs.Duration("phase-timeout", 10*time.Minute, "give up on a deployment after this long")
	outDir := fs.String("o", filepath.Join(e.out, "bench"), "output `dir`: binaries, sources, runs, JSON and charts")
	retry := fs.Bool("retry", true, "run a failed scenario once more (reported)")
	buildOnly := fs.Bool("build-only", false, "build or reuse the binaries, then stop")
	from := fs.String("from", "", "run nothing: redo the table, goals and charts of a bench.json `file` in its directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	p, err := e.loadPin()
	if err != nil {
		return err
	}
	base := p.Version()
	if *from != "" {
		rep, err := bench.ReadReport(*from)
		if err != nil {
			return err
		}
		return writeResults(e, rep, base, filepath.Dir(*from))
	}
	labels := []string{base, bench.ForkLabel, bench.RefVersion}
	resultsDir := *outDir
	if *quick {
		if !set["n"] {
			*count = 30
		}
		if !set["r"] {
			*rounds = 1
		}
		labels = labels[:2]
		resultsDir = filepath.Join(*outDir, "quick")
	}
	if *versions != "" {
		labels = nil
		for _, l := range strings.Split(*versions, ",") {
			l = strings.TrimSpace(l)
			if l != base && l != bench.ForkLabel && !semver.IsValid(l) {
				return usageError{fmt.Errorf("-versions: unknown label %q (want %s, %s or an upstream version such as %s; other binaries go in -variant)", l, base, bench.ForkLabel, bench.RefVersion)}
			}
			for _, seen := range labels {
				if seen == l {
					return usageError{fmt.Errorf("-versions: %s given twice", l)}
				}
			}
			labels = append(labels, l)
		}
	}
	if *count < 1 || *rounds < 1 {
		return usageError{errors.New("-n and -r must be at least 1")}
	}

	// Binaries.
	t, err := e.requireWorkTree(ctx)
	if err != nil {
		return err
	}
	targets, err := upstream.LoadTargets(filepath.Join(e.root, upstream.TargetsFile))
	if err != nil {
		return err
	}
	release, err := build.ForkRelease(e.log, base)
	if err != nil {
		return err
	}
	b := &bench.Builder{Tree: t, Pin: p, Targets: targets, ForkRelease: release, Dir: *outDir, Log: e.stdout}
	var bins []bench.Binary
	for _, l := range labels {
		var bin bench.Binary
		switch l {
		case base:
			bin, err = b.Base(ctx)
		case bench.ForkLabel:
			bin, err = b.Fork(ctx)
		default:
			bin, err = b.Upstream(ctx, l)
		}
		if err != nil {
			return fmt.Errorf("%s binary: %w", l, err)
		}
		bins = append(bins, bin)
	}
	for _, v := range variants {
		for _, bin := range bins {
			if bin.Label == v.name {
				return usageError{fmt.Errorf("-variant %s: the label is taken", v.name)}
			}
		}
		bin, err := bench.External(v.name, v.path)
		if err != nil {
			return err
		}
		bins = append(bins, bin)
	}
	if *buildOnly {
		for _, bin := range bins {
			fmt.Fprintf(e.stdout, "%-10s %s\n", bin.Label, bin.Path)
		}
		return nil
	}
	if len(bins) == 0 {
		return usageError{errors.New("nothing to run")}
	}

	// Runs: round by round, every binary once per round, the order rotated
	// each round so no binary always runs first.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(resultsDir, 0o755); err != nil {
		return err
	}
	rep := &bench.Report{
		Date:    time.Now().UTC(),
		Command: strings.TrimSpace("nomadfork bench " + strings.Join(args, " ")),
		Machine: machine(),
		Count:   *count, Rounds: *rounds, Settle: settle.String(),
		Binaries: bins,
	}
	if *quick && !strings.Contains(rep.Command, "-quick") {
		rep.Command += " -quick"
	}
	start := time.Now()
	total := *rounds * len(bins)
	failed := 0
	for r := 1; r <= *rounds; r++ {
		for i := range bins {
			bin := bins[(i+r-1)%len(bins)]
			n := len(rep.Runs) + 1
			what := fmt.Sprintf("run %d/%d: %s, round %d, N=%d", n, total, bin.Label, r, *count)
			var run *bench.Run
			for attempt := 1; attempt <= 2; attempt++ {
				dir := filepath.Join(resultsDir, "runs", fmt.Sprintf("%s-r%d", bin.Label, r))
				opts := scenarioArgs{nomad: bin.Path, dir: dir, label: bin.Label, round: r, count: *count, settle: *settle, phaseTimeout: *phaseTimeout}
				fmt.Fprintf(e.stdout, "==> %s\n", what)
				t0 := time.Now()
				run, err = runScenarioInSandbox(ctx, self, opts, e.stderr)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				run.Attempt = attempt
				if err == nil {
					fmt.Fprintf(e.stdout, "    %s: done in %s\n", what, time.Since(t0).Round(time.Second))
					break
				}
				run.Error = err.Error()
				if *retry && attempt == 1 {
					// Keep the failed attempt's logs beside the retry's.
					failedDir := dir + ".failed"
					_ = os.RemoveAll(failedDir)
					if os.Rename(dir, failedDir) == nil {
						dir = failedDir
					}
				}
				fmt.Fprintf(e.stdout, "    %s: FAILED in %s: %v (agent logs in %s)\n", what, time.Since(t0).Round(time.Second), err, dir)
				if !*retry {
					break
				}
			}
			if run.Error != "" {
				failed++
			}
			rep.Runs = append(rep.Runs, *run)
		}
	}
	rep.Seconds = time.Since(start).Seconds()

	if err := writeResults(e, rep, base, resultsDir); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d run(s) failed", failed, len(rep.Runs))
	}
	return nil
}

// writeResults aggregates the report's runs and writes the JSON file, the
// table (also to stdout) and the charts into dir.
func writeResults(e *env, rep *bench.Report, base, dir string) error {
	var order []string
	variants := map[string]bool{}
	for _, bin := range rep.Binaries {
		order = append(order, bin.Label)
		variants[bin.Label] = bin.Variant
	}
	rep.Summaries = bench.Aggregate(rep.Runs, order, variants, base)
	rep.Goals = bench.Goals(rep, base, bench.ForkLabel, bench.RefVersion)
	headline := filepath.Join(dir, "headline.png")
	tradeoff := filepath.Join(dir, "tradeoff.png")
	if err := bench.HeadlineChart(rep, base, headline); err != nil {
		return fmt.Errorf("drawing %s: %w", headline, err)
	}
	if err := bench.TradeoffChart(rep, tradeoff); err != nil {
		return fmt.Errorf("drawing %s: %w", tradeoff, err)
	}
	rep.Charts = []string{headline, tradeoff}
	jsonFile := filepath.Join(dir, "bench.json")
	if err := rep.WriteJSON(jsonFile); err != nil {
		return err
	}
	var table bytes.Buffer
	fmt.Fprintf(&table, "nomadfork bench, %s, %s: N=%d, %d round(s), settle %s; %d run(s) in %s\n",
		rep.Date.Format("2006-01-02 15:04 MST"), rep.Machine, rep.Count, rep.Rounds, rep.Settle, len(rep.Runs), time.Duration(rep.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(&table, "command: %s\n\n", rep.Command)
	bench.WriteTable(&table, rep, base)
	bench.WriteGoals(&table, rep, bench.RefVersion)
	bench.WriteNotes(&table, rep)
	tableFile := filepath.Join(dir, "table.txt")
	if err := os.WriteFile(tableFile, table.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	e.stdout.Write(table.Bytes())
	fmt.Fprintf(e.stdout, "wrote %s, %s, %s and %s\n", jsonFile, tableFile, headline, tradeoff)
	return nil
}

// machine describes the machine's size.
func machine() string {
	mem := ""
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
					mem = fmt.Sprintf(", %.0f GiB", kb/1024/1024)
				}
			}
		}
	}
	return fmt.Sprintf("%d cores%s, %s/%s", runtime.NumCPU(), mem, runtime.GOOS, runtime.GOARCH)
}

// scenarioArgs are the flags of the hidden scenario verb.
type scenarioArgs struct {
	nomad, dir, label    string
	round, count         int
	settle, phaseTimeout time.Duration
}

func (a scenarioArgs) argv(self string) []string {
	return []string{self, benchRunArg,
		"-nomad", a.nomad, "-dir", a.dir, "-label", a.label,
		"-round", strconv.Itoa(a.round), "-n", strconv.Itoa(a.count),
		"-settle", a.settle.String(), "-phase-timeout", a.phaseTimeout.String(),
	}
}

// runScenarioInSandbox runs one scenario in a new sandbox and decodes the
// result it prints. The returned run is never nil.
func runScenarioInSandbox(ctx context.Context, self string, a scenarioArgs, log io.Writer) (*bench.Run, error) {
	run := &bench.Run{Label: a.label, Round: a.round, Binary: a.nomad, Count: a.count}
	if err := os.RemoveAll(a.dir); err != nil {
		return run, err
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return run, err
	}
	cmd, err := sandbox.Command(a.argv(self))
	if err != nil {
		return run, err
	}
	var stdout bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = &stdout
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return run, err
	}
	// The whole run is bounded: cluster start, two deployments, settle,
	// stopping. Killing unshare (--kill-child) ends the namespace.
	limit := 2*time.Minute + 2*a.phaseTimeout + a.settle + 2*time.Minute
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var runErr error
	select {
	case runErr = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return run, ctx.Err()
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return run, fmt.Errorf("the scenario did not end within %s", limit)
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:]
	}
	if len(out) > 0 {
		var got bench.Run
		if err := json.Unmarshal(out, &got); err == nil {
			run = &got
		} else if runErr == nil {
			runErr = fmt.Errorf("decoding the scenario's result: %w", err)
		}
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

// benchScenarioMain is the hidden scenario verb, run inside the sandbox: it
// runs the scenario once and prints its result as one line of JSON.
func benchScenarioMain(args []string) int {
	fs := flag.NewFlagSet(benchRunArg, flag.ContinueOnError)
	nomad := fs.String("nomad", "", "nomad binary")
	dir := fs.String("dir", "", "run directory")
	label := fs.String("label", "", "label")
	round := fs.Int("round", 1, "round")
	count := fs.Int("n", 300, "count")
	settle := fs.Duration("settle", 5*time.Second, "settle")
	phaseTimeout := fs.Duration("phase-timeout", 10*time.Minute, "phase timeout")
	startTimeout := fs.Duration("start-timeout", 2*time.Minute, "cluster start timeout")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *nomad == "" || *dir == "" {
		fmt.Fprintln(os.Stderr, benchRunArg+": -nomad and -dir are required")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := bench.RunScenario(ctx, bench.Options{
		Nomad: *nomad, Dir: *dir, Label: *label, Round: *round, Count: *count, Clients: 3,
		Settle: *settle, PhaseTimeout: *phaseTimeout, StartTimeout: *startTimeout, Log: os.Stderr,
	})
	if run == nil {
		run = &bench.Run{Label: *label, Round: *round, Binary: *nomad, Count: *count}
	}
	if err != nil {
		run.Error = err.Error()
	}
	data, merr := json.Marshal(run)
	if merr != nil {
		fmt.Fprintln(os.Stderr, merr)
		return 1
	}
	fmt.Println(string(data))
	if err != nil {
		return 1
	}
	return 0
}
