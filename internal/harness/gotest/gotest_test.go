package gotest

import (
	"path/filepath"
	"strings"
	"testing"
)

const stream = `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"run","Package":"p","Test":"TestB/sub"}
{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    b_test.go:9: x509: certificate has expired\n"}
{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0.1}
{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.1}
{"Action":"run","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: requires vault\n"}
{"Action":"skip","Package":"p","Test":"TestC","Elapsed":0}
{"Action":"fail","Package":"p","Elapsed":0.3}
# q [q.test]
{"Action":"fail","Package":"q","Elapsed":0}
`

func TestReport(t *testing.T) {
	rep := NewReport()
	var echo strings.Builder
	if err := rep.Read(strings.NewReader(stream), &echo); err != nil {
		t.Fatal(err)
	}
	if n := len(rep.Select("pass")); n != 1 {
		t.Errorf("passed = %d", n)
	}
	failed := rep.Select("fail")
	if len(failed) != 1 || failed[0].Test != "TestB" {
		t.Fatalf("failed = %v", failed)
	}
	if got := Reason(failed[0]); !strings.Contains(got, "TLS test fixture expired") {
		t.Errorf("reason = %q", got)
	}
	race := Result{Output: []string{"WARNING: DATA RACE", "  /go/src/cni/x.go:1", "testing.go:1: race detected during execution of test"}}
	if got := Reason(race); !strings.Contains(got, "data race") {
		t.Errorf("race reason = %q", got)
	}
	skipped := rep.Select("skip")
	if len(skipped) != 1 || SkipReason(skipped[0]) != "requires vault" {
		t.Errorf("skipped = %v", skipped)
	}
	if pf := rep.FailedPackages(); len(pf) != 1 || pf[0].Package != "q" {
		t.Errorf("failed packages = %v, want only q (p failed through TestB)", pf)
	}
	if !strings.Contains(echo.String(), "# q [q.test]") {
		t.Errorf("non-JSON output not echoed: %q", echo.String())
	}
}

func TestBaselineRoundTripAndSkipPattern(t *testing.T) {
	b := &Baseline{Header: []string{"made by a test"}, Tests: []Known{
		{"p", "TestZ", "z"}, {"p", "TestA_1", "a"}, {"q", "TestA", "qa"},
	}}
	file := filepath.Join(t.TempDir(), "b.tsv")
	if err := b.Write(file); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Tests) != 3 || got.Tests[0].Test != "TestA_1" || got.Header[0] != "made by a test" {
		t.Errorf("round trip = %+v", got)
	}
	byPkg := got.ByPackage()
	if pat := SkipPattern(byPkg["p"]); pat != "^(TestA_1|TestZ)$" {
		t.Errorf("pattern = %q", pat)
	}
	if _, ok := got.Lookup("q", "TestA"); !ok {
		t.Errorf("lookup failed")
	}
}

func TestRaced(t *testing.T) {
	for out, want := range map[string]bool{
		"WARNING: DATA RACE": true,
		"    testing.go:1712: race detected during execution of test": true,
		"Error: Not equal": false,
	} {
		if got := Raced(Result{Output: []string{"=== RUN   TestX", out}}); got != want {
			t.Errorf("Raced(%q) = %v, want %v", out, got, want)
		}
	}
}

// A package whose tests do not build: go test -json reports the build's
// output by import path and the package's failure with FailedBuild.
func TestReportBuildFailure(t *testing.T) {
	const stream = `{"ImportPath":"p [p.test]","Action":"build-output","Output":"# p\n"}
{"ImportPath":"p [p.test]","Action":"build-output","Output":"package p\n"}
{"ImportPath":"p [p.test]","Action":"build-output","Output":"\timports q from x.go: import cycle not allowed in test\n"}
{"ImportPath":"p [p.test]","Action":"build-fail"}
{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"FAIL\tp [setup failed]\n"}
{"Action":"fail","Package":"p","Elapsed":0,"FailedBuild":"p [p.test]"}
{"Action":"fail","Package":"r","Elapsed":1}
`
	rep := NewReport()
	var echo strings.Builder
	if err := rep.Read(strings.NewReader(stream), &echo); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(echo.String(), "import cycle not allowed") {
		t.Errorf("echo lacks the build output:\n%s", echo.String())
	}
	failed := rep.FailedPackages()
	if len(failed) != 2 || failed[0].Package != "p" || !failed[0].BuildFailed || failed[1].BuildFailed {
		t.Fatalf("failed packages = %+v", failed)
	}
	if _, ok := rep.Packages[""]; ok {
		t.Error("build events made a package without a name")
	}
	k := BuildFailure(failed[0])
	if k.Test != WholePackage || k.Reason != "tests do not build on unpatched upstream: imports q from x.go: import cycle not allowed in test" {
		t.Errorf("BuildFailure = %+v", k)
	}
	b := &Baseline{Tests: []Known{k, {Package: "p2", Test: "TestX", Reason: "r"}}}
	file := t.TempDir() + "/b.tsv"
	if err := b.Write(file); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(file)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := back.Unbuildable("p"); !ok || got != k {
		t.Errorf("Unbuildable(p) = %+v, %v", got, ok)
	}
	if _, ok := back.Unbuildable("p2"); ok {
		t.Error("p2 is unbuildable")
	}
}
