package main

// The interrupt harness: each mutating verb, on the fixture, interrupted
// at every progress step boundary and at every git invocation (git killed
// holding the index lock, killed after doing its work, or killed half-way
// through `git am` / `git worktree add`), then resumed with the command the
// interruption's message advises. Invariants: the advised command
// succeeds; then the series (every patch file, the pin, CHANGELOG.md and
// the default-line record) is byte-identical to an uninterrupted run's,
// the work tree is clean and re-exports the series unchanged, and no
// staging directory or index lock is left.
//
// By default a sample runs: perScenario points per scenario, spread evenly
// over its git invocations (each mode) and progress steps, so the tool's
// own test stays fast; NOMADFORK_INTERRUPT_ALL=1 runs every point
// (docs/crash-safety.md); NOMADFORK_INTERRUPT_POINT=<scenario>:<k>:<mode>
// runs one git invocation's point.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// interruptScenario is a verb run from a prepared state.
type interruptScenario struct {
	name  string
	setup func(p *project)
	verb  []string
	// then runs after the verb (or its resumption) succeeded, in the
	// reference run and in every interrupted one.
	then [][]string
	// line is the line whose work tree must be clean at the end.
	line string
	// newLine: the verb makes line, a line of its own (work tree
	// lines/<line>/nomad, commands with -line).
	newLine bool
}

var interruptScenarios = []interruptScenario{
	{name: "apply", setup: func(p *project) {
		p.graphSeries(true)
		os.RemoveAll(filepath.Join(p.dir, "nomad"))
	}, verb: []string{"apply"}},
	{name: "extract", setup: func(p *project) {
		p.fourPatches()
		c1, c2 := p.git("rev-parse", "HEAD~3"), p.git("rev-parse", "HEAD~2")
		p.git("rebase", "-q", "--onto", c1, c2, "fork")
		p.commitFile("lib/h.go", "package lib\n\n// H returns 8.\nfunc H() int { return 8 }\n", "lib: add H")
	}, verb: []string{"extract"}},
	{name: "rebase", setup: func(p *project) { p.twoPatches() },
		verb: []string{"rebase", "-onto", "v1.1.0"}, line: "v1.1.0"},
	{name: "rebase-new-line", setup: func(p *project) { p.twoPatches() },
		verb: []string{"rebase", "-onto", "v1.1.0", "-new-line"}, line: "v1.1.0", newLine: true},
	{name: "rebase-continue", setup: func(p *project) {
		p.conflictSeries()
		p.mustFail("rebase", "-onto", "v1.0.2")
		p.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	}, verb: []string{"rebase", "-continue"}, line: "v1.0.2"},
	{name: "rebase-continue-new-line", setup: func(p *project) { p.newLineStopped() },
		verb: []string{"rebase", "-continue", "-line", "v1.0.2"}, line: "v1.0.2", newLine: true},
	{name: "rebase-abort", setup: func(p *project) {
		p.conflictSeries()
		p.mustFail("rebase", "-onto", "v1.0.2")
	}, verb: []string{"rebase", "-abort"}},
	{name: "apply-continue", setup: func(p *project) {
		p.conflictSeries()
		p.repin("v1.0.2")
		p.mustFail("apply")
		p.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	}, verb: []string{"apply", "-continue"}, then: [][]string{{"extract"}}},
	{name: "drop", setup: func(p *project) { p.twoPatches() },
		verb: []string{"drop", "0002", "-applied-upstream", "v1.1.0", "-pr", "https://github.com/example/up/pull/7"},
		then: [][]string{{"extract"}}},
	{name: "check", setup: func(p *project) { p.twoPatches() }, verb: []string{"check", "-no-build"}},
	{name: "status", setup: func(p *project) { p.twoPatches() }, verb: []string{"status", "-against", "v1.0.1,v1.2.0"}},
	{name: "export", setup: func(p *project) { p.twoPatches() }, verb: []string{"export"}},
}

// outcome is what the invariants compare: the repository's files of the
// series, and how the work tree re-exports.
type outcome map[string]string

func (p *project) outcome(line string) outcome {
	p.t.Helper()
	o := outcome{}
	filepath.Walk(filepath.Join(p.dir, "patches"), func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(p.dir, path)
		data, _ := os.ReadFile(path)
		o[rel] = string(data)
		return nil
	})
	o["CHANGELOG.md"] = p.read("CHANGELOG.md")
	return o
}

func (o outcome) diff(want outcome) string {
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range o {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		if o[n] != want[n] {
			out = append(out, fmt.Sprintf("%s differs (got %d bytes, want %d)", n, len(o[n]), len(want[n])))
		}
	}
	return strings.Join(out, "; ")
}

// copyProject copies the prepared project to a new directory.
func copyProject(t *testing.T, from *project) *project {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if out, err := exec.Command("cp", "-a", from.dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the project: %v: %s", err, out)
	}
	return &project{t: t, dir: dir, proxy: from.proxy}
}

var resumeRE = regexp.MustCompile("run `nomadfork ([^`]*)` to resume")

// invariants checks an interrupted and resumed run against the
// reference.
func (p *project) invariants(sc interruptScenario, want outcome, what string) {
	p.t.Helper()
	if d := p.outcome(sc.line).diff(want); d != "" {
		p.t.Errorf("%s: series differs from the uninterrupted run's: %s", what, d)
	}
	if p.exists(filepath.Join("patches", txn.DirName)) {
		p.t.Errorf("%s: staging directory left", what)
	}
	wt := "nomad"
	if sc.newLine {
		wt = filepath.Join("lines", sc.line, "nomad")
	}
	if p.exists(filepath.Join(wt, ".git", "index.lock")) {
		p.t.Errorf("%s: index.lock left in %s", what, wt)
	}
	if got := p.gitIn(wt, "status", "--porcelain", "--untracked-files=all"); got != "" {
		p.t.Errorf("%s: %s not clean: %q", what, wt, got)
	}
	args := []string{"extract"}
	if sc.newLine {
		args = append(args, "-line", sc.line)
	}
	r := p.nomadfork(args...)
	if r.code != 0 || strings.Contains(r.stdout, "updated") || strings.Contains(r.stdout, "added") || strings.Contains(r.stdout, "removed") {
		p.t.Errorf("%s: the work tree does not re-export the series unchanged: exit %d\n%s%s", what, r.code, r.stdout, r.stderr)
	}
}

// runThen runs the scenario's follow-up commands.
func (p *project) runThen(sc interruptScenario, what string) bool {
	p.t.Helper()
	for _, args := range sc.then {
		if r := p.nomadfork(args...); r.code != 0 {
			p.t.Errorf("%s: nomadfork %s: exit %d\n%s", what, strings.Join(args, " "), r.code, r.stderr)
			return false
		}
	}
	return true
}

// resume runs the command the interruption advised.
func (p *project) resume(r result, what string) bool {
	p.t.Helper()
	if r.code == 0 {
		return true // it finished before it noticed the interruption
	}
	m := resumeRE.FindStringSubmatch(r.stderr)
	if r.code != exitInterrupted || m == nil {
		p.t.Errorf("%s: exit %d, no resume advice:\n%s", what, r.code, r.stderr)
		return false
	}
	rr := p.nomadfork(strings.Fields(m[1])...)
	if rr.code != 0 {
		p.t.Errorf("%s: the advised `nomadfork %s` failed: exit %d\n%s\n%s", what, m[1], rr.code, rr.stdout, rr.stderr)
		return false
	}
	return true
}

var stepHookMu sync.Mutex

// interruptAtStep runs nomadfork and interrupts it when the n-th progress
// step (1-based) begins.
func (p *project) interruptAtStep(n int, args ...string) result {
	p.t.Helper()
	stepHookMu.Lock()
	defer stepHookMu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	progress.TestHookBegin = func(string) {
		seen++
		if seen == n {
			cancel()
		}
	}
	defer func() { progress.TestHookBegin = nil }()
	var stdout, stderr syncBuffer
	code := run(ctx, append([]string{"-C", p.dir}, args...), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// countSteps runs nomadfork and returns how many progress steps began.
func (p *project) countSteps(args ...string) (result, int) {
	p.t.Helper()
	stepHookMu.Lock()
	defer stepHookMu.Unlock()
	n := 0
	progress.TestHookBegin = func(string) { n++ }
	defer func() { progress.TestHookBegin = nil }()
	return p.nomadfork(args...), n
}

func TestInterruptHarness(t *testing.T) {
	all := os.Getenv("NOMADFORK_INTERRUPT_ALL") == "1"
	total, ran := 0, 0
	for si, sc := range interruptScenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := installFakeGit(t)
			tmpl := newProject(t)
			sc.setup(tmpl)
			// The reference: uninterrupted, counting git invocations and
			// progress steps.
			ref := copyProject(t, tmpl)
			f.arm(t, "", 0, "")
			r, steps := ref.countSteps(sc.verb...)
			calls := len(f.disarm())
			if r.code != 0 {
				t.Fatalf("reference run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if !ref.runThen(sc, "reference") {
				return
			}
			want := ref.outcome(sc.line)
			ref.invariants(sc, want, "reference")
			ranBefore := ran
			modes := []string{hangLock, hangAfter, hangMid, died}
			if m := os.Getenv("NOMADFORK_INTERRUPT_MODES"); m != "" {
				modes = strings.Split(m, ",")
			}
			stride := (calls*len(modes) + steps) / perScenario
			if stride < 1 {
				stride = 1
			}
			points := 0
			for k := 1; k <= calls; k++ {
				for _, mode := range modes {
					points++
					if !all && (points+si)%stride != 0 {
						continue
					}
					if only := os.Getenv("NOMADFORK_INTERRUPT_POINT"); only != "" && only != fmt.Sprintf("%s:%d:%s", sc.name, k, mode) {
						continue
					}
					what := fmt.Sprintf("%s, git invocation %d of %d (%s)", strings.Join(sc.verb, " "), k, calls, mode)
					p := copyProject(t, tmpl)
					r := p.interruptAt(f, "", k, mode, sc.verb...)
					if !f.fired() {
						t.Errorf("%s: not reached", what)
						continue
					}
					what += ": " + f.hung
					ran++
					if p.resume(r, what) && p.runThen(sc, what) {
						p.invariants(sc, want, what)
					}
				}
			}
			for n := 1; n <= steps; n++ {
				points++
				if !all && (points+si)%stride != 0 {
					continue
				}
				what := fmt.Sprintf("%s, progress step %d of %d", strings.Join(sc.verb, " "), n, steps)
				p := copyProject(t, tmpl)
				r := p.interruptAtStep(n, sc.verb...)
				ran++
				if p.resume(r, what) && p.runThen(sc, what) {
					p.invariants(sc, want, what)
				}
			}
			t.Logf("%s: %d git invocations × %d modes, %d progress steps: %d interruption points, %d run, failed: %v", sc.name, calls, len(modes), steps, points, ran-ranBefore, t.Failed())
			total += points
		})
	}
	t.Logf("interrupt harness: %d scenarios, %d interruption points, %d run", len(interruptScenarios), total, ran)
}

const testMainEnv = "NOMADFORK_TEST_MAIN"

// perScenario is how many interruption points of each scenario the
// default run tries.
const perScenario = 5

// TestInterruptBySIGINT sends a real SIGINT, as Ctrl-C in a terminal does
// (to the whole process group: nomadfork and its git), at pseudo-random
// offsets into a run of nomadfork, then resumes as advised and checks the
// harness's invariants. The offsets come from a fixed seed, so a failure
// repeats (NOMADFORK_SIGINT_SEED=n tries others).
func TestInterruptBySIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	seed := int64(21)
	if v := os.Getenv("NOMADFORK_SIGINT_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("NOMADFORK_SIGINT_SEED=%q: %v", v, err)
		}
		seed = n
	}
	rng := rand.New(rand.NewSource(seed))
	for _, sc := range interruptScenarios {
		switch sc.name {
		case "apply", "rebase", "rebase-continue", "extract":
		default:
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			tmpl := newProject(t)
			sc.setup(tmpl)
			ref := copyProject(t, tmpl)
			start := time.Now()
			if code, out := ref.subprocess(t, 0, sc.verb...); code != 0 {
				t.Fatalf("reference run: exit %d\n%s", code, out)
			}
			took := time.Since(start)
			if !ref.runThen(sc, "reference") {
				return
			}
			want := ref.outcome(sc.line)
			for i := 0; i < 3; i++ {
				after := time.Duration(rng.Int63n(int64(took)))
				what := fmt.Sprintf("%s, SIGINT after %s of %s", strings.Join(sc.verb, " "), after.Round(time.Millisecond), took.Round(time.Millisecond))
				p := copyProject(t, tmpl)
				code, out := p.subprocess(t, after, sc.verb...)
				if code < 0 {
					// Killed by the signal's default action — before its
					// handler was installed, or after the command had done
					// its work and was on its way out: a user runs the
					// command again. When the work was done, that run
					// refuses it as done (say, the rebase completed), and
					// the series must then be the uninterrupted run's.
					code, out = p.subprocess(t, 0, sc.verb...)
					if code != 0 && len(sc.then) == 0 && p.outcome(sc.line).diff(want) == "" {
						p.invariants(sc, want, what)
						continue
					}
					if code != 0 {
						t.Errorf("%s: killed before its handler, then run again: exit %d\n%s", what, code, out)
						continue
					}
				}
				if code != 0 && !p.resume(result{code: code, stderr: out}, what) {
					continue
				}
				if p.runThen(sc, what) {
					p.invariants(sc, want, what)
				}
			}
		})
	}
}

// subprocess runs the test binary as nomadfork in its own process group
// and, if after is positive, sends the group SIGINT after that long. It
// returns the exit code and the combined output.
func (p *project) subprocess(t *testing.T, after time.Duration, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-C", p.dir}, args...)...)
	cmd.Env = append(os.Environ(), testMainEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	if after > 0 {
		timer := time.AfterFunc(after, func() {
			select {
			case <-done:
			default:
				syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
			}
		})
		defer timer.Stop()
	}
	err := cmd.Wait()
	close(done)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// A closed pipe on stdout (`nomadfork apply | head -1`) ends the run as
// an interruption does: it cleans up and says how to resume, where SIGPIPE
// killed it mid-step, leaving its lock and scratch trees to the next run.
func TestClosedStdoutIsAnInterruption(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	p := newProject(t)
	p.twoPatches()
	p.git("reset", "-q", "--hard", "upstream")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before the first line
	cmd := exec.Command(os.Args[0], "-C", p.dir, "apply")
	cmd.Env = append(os.Environ(), testMainEnv+"=1")
	var stderr syncBuffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	w.Close()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("apply with stdout closed: %v, want exit %d\n%s", err, exitInterrupted, stderr.String())
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("apply with stdout closed was killed by %v\n%s", ws.Signal(), stderr.String())
	}
	p.expect(result{code: ee.ExitCode(), stderr: stderr.String()}, exitInterrupted, "run `nomadfork apply` to resume")
	if _, err := os.Stat(filepath.Join(p.dir, "out", "nomadfork.lock")); err == nil {
		t.Error("the tool's lock was left behind")
	}
	p.mustRun("apply")
}
