package verdict

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
)

// report builds a report from "pkg.Test=action" entries; a package entry
// has no dot.
func report(entries ...string) *gotest.Report {
	rep := gotest.NewReport()
	for _, e := range entries {
		name, action, _ := strings.Cut(e, "=")
		pkg, test, isTest := strings.Cut(name, ".")
		if !isTest {
			rep.Packages[pkg] = &gotest.Result{Package: pkg, Action: action, Output: []string{"build failed"}}
			continue
		}
		rep.Tests[[2]string{pkg, test}] = &gotest.Result{Package: pkg, Test: test, Action: action}
	}
	return rep
}

// fixed returns a Rerun that answers from a script: per call, test name →
// action; it records the tests each call got.
type fixed struct {
	calls [][]string
	plan  []map[string]string
}

func (f *fixed) rerun(_ context.Context, tests []gotest.Result, _ []string) (map[[2]string]string, error) {
	var names []string
	out := map[[2]string]string{}
	for _, t := range tests {
		names = append(names, t.Test)
		if len(f.plan) > len(f.calls) {
			out[[2]string{t.Package, t.Test}] = f.plan[len(f.calls)][t.Test]
		}
	}
	f.calls = append(f.calls, names)
	return out, nil
}

func names(rs []gotest.Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Test)
	}
	return strings.Join(out, ",")
}

func TestJudgeClassifies(t *testing.T) {
	rep := report("p.TestPass=pass", "p.TestSkip=skip", "p.TestFlaky=fail", "p.TestUp=fail", "p.TestRaceUp=fail", "p.TestReg=fail", "p.TestGone=fail")
	fork := &fixed{plan: []map[string]string{{"TestFlaky": "pass", "TestUp": "fail", "TestRaceUp": "fail", "TestReg": "fail", "TestGone": "fail"}}}
	// Upstream: TestUp fails at once, TestRaceUp only in the second run,
	// TestReg passes every run, TestGone does not exist upstream.
	up := &fixed{plan: []map[string]string{
		{"TestUp": "fail", "TestRaceUp": "pass", "TestReg": "pass", "TestGone": ""},
		{"TestRaceUp": "fail", "TestReg": "pass"},
		{"TestReg": "pass"},
	}}
	v, err := Judge(context.Background(), rep, Options{Fork: fork.rerun, Upstream: up.rerun, MaxRetries: 20, UpstreamRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string][2]string{
		"passed":      {names(v.Passed), "TestPass"},
		"skipped":     {names(v.Skipped), "TestSkip"},
		"flaky":       {names(v.Flaky), "TestFlaky"},
		"upstream":    {names(v.Upstream), "TestRaceUp,TestUp"},
		"regressions": {names(v.Regressions), "TestGone,TestReg"},
	} {
		if got[0] != got[1] {
			t.Errorf("%s = %q, want %q", what, got[0], got[1])
		}
	}
	if v.Failures() != 2 {
		t.Errorf("Failures() = %d, want 2", v.Failures())
	}
	// Only what still fails goes to upstream, and a test that failed there
	// once is not tried again.
	if got := fmt.Sprint(up.calls); got != "[[TestGone TestRaceUp TestReg TestUp] [TestRaceUp TestReg] [TestReg]]" {
		t.Errorf("upstream calls = %s", got)
	}
}

// A failure that reported a data race is tried on upstream up to
// UpstreamRaceRuns times: upstream's own races pass many runs.
func TestJudgeTriesRacesMoreOnUpstream(t *testing.T) {
	rep := report("p.TestRace=fail", "p.TestPlain=fail", "p.TestRaceReg=fail")
	for _, n := range []string{"TestRace", "TestRaceReg"} {
		rep.Tests[[2]string{"p", n}].Output = []string{"WARNING: DATA RACE", "    --- FAIL: " + n + "/sub", "        testing.go:1712: race detected during execution of test"}
	}
	fork := &fixed{plan: []map[string]string{{"TestRace": "fail", "TestPlain": "fail", "TestRaceReg": "fail"}}}
	// Upstream: TestRace fails in its fifth run only; the others never.
	var plan []map[string]string
	for run := 0; run < 10; run++ {
		m := map[string]string{"TestRace": "pass", "TestPlain": "pass", "TestRaceReg": "pass"}
		if run == 4 {
			m["TestRace"] = "fail"
		}
		plan = append(plan, m)
	}
	up := &fixed{plan: plan}
	v, err := Judge(context.Background(), rep, Options{Fork: fork.rerun, Upstream: up.rerun, MaxRetries: 20, UpstreamRuns: 3, UpstreamRaceRuns: 10})
	if err != nil {
		t.Fatal(err)
	}
	if names(v.Upstream) != "TestRace" || names(v.Regressions) != "TestPlain,TestRaceReg" {
		t.Errorf("upstream = %q, regressions = %q", names(v.Upstream), names(v.Regressions))
	}
	// TestPlain stops after UpstreamRuns, TestRaceReg goes on to
	// UpstreamRaceRuns, TestRace stops when it fails.
	var counts []int
	for _, c := range up.calls {
		counts = append(counts, len(c))
	}
	if got := fmt.Sprint(counts); got != "[3 3 3 2 2 1 1 1 1 1]" {
		t.Errorf("tests per upstream run = %s (calls %v)", got, up.calls)
	}
}

// A failure that reported a data race is retried on the fork up to
// ForkRaceRuns times; passing once makes it FLAKY.
func TestJudgeRetriesRacesMoreOnFork(t *testing.T) {
	rep := report("p.TestRace=fail", "p.TestPlain=fail", "p.TestOwnRace=fail")
	for _, n := range []string{"TestRace", "TestOwnRace"} {
		rep.Tests[[2]string{"p", n}].Output = []string{"WARNING: DATA RACE", "testing.go:1712: race detected during execution of test"}
	}
	fork := &fixed{plan: []map[string]string{
		{"TestRace": "fail", "TestPlain": "fail", "TestOwnRace": "fail"},
		{"TestRace": "pass", "TestOwnRace": "fail"},
		{"TestOwnRace": "fail"},
		{"TestOwnRace": "pass"}, // never asked: three runs at most
	}}
	// Upstream does not have TestOwnRace; TestPlain passes there.
	up := &fixed{plan: []map[string]string{{"TestPlain": "pass", "TestOwnRace": ""}}}
	v, err := Judge(context.Background(), rep, Options{Fork: fork.rerun, Upstream: up.rerun, MaxRetries: 20, UpstreamRuns: 1, ForkRaceRuns: 3})
	if err != nil {
		t.Fatal(err)
	}
	if names(v.Flaky) != "TestRace" || names(v.Regressions) != "TestOwnRace,TestPlain" {
		t.Errorf("flaky = %q, regressions = %q", names(v.Flaky), names(v.Regressions))
	}
	if got := fmt.Sprint(fork.calls); got != "[[TestOwnRace TestPlain TestRace] [TestOwnRace TestRace] [TestOwnRace]]" {
		t.Errorf("fork calls = %s", got)
	}
}

func TestJudgeWithoutRetryOrOverLimit(t *testing.T) {
	rep := report("p.TestA=fail", "p.TestB=fail", "q=fail")
	fork := &fixed{}
	v, err := Judge(context.Background(), rep, Options{Fork: fork.rerun, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(fork.calls) != 0 {
		t.Errorf("retried %v although more failures than MaxRetries", fork.calls)
	}
	if names(v.Regressions) != "TestA,TestB" || len(v.Packages) != 1 || v.Failures() != 3 {
		t.Errorf("verdict = %+v", v)
	}
	// A suite that is not upstream's: a failure on retry is a regression.
	fork = &fixed{plan: []map[string]string{{"TestA": "fail", "TestB": "pass"}}}
	v, err = Judge(context.Background(), report("p.TestA=fail", "p.TestB=fail"), Options{Fork: fork.rerun, MaxRetries: 20})
	if err != nil {
		t.Fatal(err)
	}
	if names(v.Regressions) != "TestA" || names(v.Flaky) != "TestB" {
		t.Errorf("verdict = %+v", v)
	}
}

func TestJudgeReportsRerunErrors(t *testing.T) {
	boom := errors.New("sandbox failed")
	_, err := Judge(context.Background(), report("p.TestA=fail"), Options{MaxRetries: 5,
		Fork: func(context.Context, []gotest.Result, []string) (map[[2]string]string, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestPrint(t *testing.T) {
	v := &Verdict{Passed: make([]gotest.Result, 3),
		Flaky:       []gotest.Result{{Package: "p", Test: "TestF"}},
		Regressions: []gotest.Result{{Package: "p", Test: "TestR", Output: []string{"boom"}}}}
	var b strings.Builder
	v.Print(&b, "go test ./client/...", 2)
	for _, want := range []string{"2 packages, 3 passed, 2 failed, 0 skipped", "FLAKY p.TestF", "FAIL p.TestR (regression", "        boom"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteLogs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "client")
	// A log of an earlier run goes: the test passed this time.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "a_p.TestOld.log")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := make([]string, 100)
	for i := range long {
		long[i] = fmt.Sprintf("line %d", i)
	}
	v := &Verdict{Passed: []gotest.Result{{Package: "a/p", Test: "TestPass", Output: []string{"fine"}}},
		Flaky:       []gotest.Result{{Package: "a/p", Test: "TestF", Output: []string{"flaked"}}},
		Upstream:    []gotest.Result{{Package: "a/p", Test: "TestU", Output: []string{"upstream's"}}},
		Regressions: []gotest.Result{{Package: "a/p", Test: "TestR", Output: long}},
		Packages:    []gotest.Result{{Package: "a/q", Output: []string{"build failed"}}}}
	if err := v.WriteLogs(dir); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a_p.TestF.log": "flaked\n",
		"a_p.TestU.log": "upstream's\n",
		"a_p.TestR.log": strings.Join(long, "\n") + "\n",
		"a_q.log":       "build failed\n",
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("%d logs, want %d (the stale and the passed test's none): %v", len(entries), len(want), entries)
	}
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != content {
			t.Errorf("%s = %q, %v; want the whole output", name, got, err)
		}
	}
	var b strings.Builder
	v.Print(&b, "go test ./client/...", 2)
	for _, name := range []string{"a_p.TestF.log", "a_p.TestU.log", "a_p.TestR.log", "a_q.log"} {
		if !strings.Contains(b.String(), "full output: "+filepath.Join(dir, name)+"\n") {
			t.Errorf("output does not name %s:\n%s", name, b.String())
		}
	}
	if strings.Contains(b.String(), "line 69\n") || !strings.Contains(b.String(), "line 70\n") {
		t.Errorf("the summary prints the tail only:\n%s", b.String())
	}

	// A run without failures leaves no logs behind.
	if err := (&Verdict{}).WriteLogs(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("logs of the earlier run remain: %v", err)
	}
}

func TestCollectUnionSkipsKnown(t *testing.T) {
	earlier := &gotest.Baseline{Tests: []gotest.Known{{Package: "p", Test: "TestOld", Reason: "old"}}}
	var skipped [][]string
	plans := [][]string{
		{"p.TestA=fail", "p.TestB=pass"},
		{"p.TestA=fail", "p.TestB=fail", "p.TestC=pass"}, // TestA is skipped by then; whatever it says
	}
	run := 0
	tests, passed, skippedN, err := Collect(context.Background(), 2, earlier, func(_ context.Context, known *gotest.Baseline, rep *gotest.Report) error {
		var ks []string
		for _, k := range known.Tests {
			ks = append(ks, k.Test)
		}
		skipped = append(skipped, ks)
		*rep = *report(plans[run]...)
		run++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(skipped); got != "[[TestOld] [TestA TestOld]]" {
		t.Errorf("known per run = %s", got)
	}
	var got []string
	for _, k := range tests {
		got = append(got, k.Test+":"+k.Reason)
	}
	if strings.Join(got, " ") != "TestA:failed without an error message (see the baseline run's output) TestB:failed without an error message (see the baseline run's output) TestOld:old" {
		t.Errorf("tests = %v", got)
	}
	if passed != 1 || skippedN != 0 {
		t.Errorf("last run: %d passed, %d skipped", passed, skippedN)
	}
}

// A package whose tests do not build on upstream becomes a whole-package
// entry, which the next run gets as known.
func TestCollectRecordsBuildFailure(t *testing.T) {
	var knownPerRun []string
	tests, _, _, err := Collect(context.Background(), 2, nil, func(_ context.Context, known *gotest.Baseline, rep *gotest.Report) error {
		_, ok := known.Unbuildable("p")
		knownPerRun = append(knownPerRun, fmt.Sprint(ok))
		*rep = *report("q.TestA=pass")
		if !ok {
			rep.Packages["p"] = &gotest.Result{Package: "p", Action: "fail", BuildFailed: true,
				Output: []string{"# p", "x.go:1: import cycle not allowed in test", "FAIL\tp [setup failed]"}}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(knownPerRun, ","); got != "false,true" {
		t.Errorf("p known as unbuildable per run: %s", got)
	}
	if len(tests) != 1 || tests[0].Test != gotest.WholePackage || !strings.Contains(tests[0].Reason, "import cycle") {
		t.Errorf("tests = %+v", tests)
	}
}

func TestCollectRefusesPackageFailure(t *testing.T) {
	_, _, _, err := Collect(context.Background(), 1, nil, func(_ context.Context, _ *gotest.Baseline, rep *gotest.Report) error {
		*rep = *report("p=fail")
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "package p fails on upstream without a failing test") {
		t.Errorf("err = %v", err)
	}
}

func TestSubtract(t *testing.T) {
	if got := fmt.Sprint(Subtract([]string{"a", "b", "c"}, []string{"b"})); got != "[a c]" {
		t.Errorf("Subtract = %s", got)
	}
}
