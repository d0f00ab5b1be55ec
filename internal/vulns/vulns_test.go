package vulns

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// scanSynth builds the pinned govulncheck and scans a package of the
// synthetic module testdata/synth (which vendors example.com/vulnlib)
// against testdata/db (GO-2099-0001: vulnlib.Bad), without the network.
func scanSynth(t *testing.T, govulncheck, pkg string) *Report {
	t.Helper()
	db, err := filepath.Abs("testdata/db")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Scan(context.Background(), ScanOptions{
		Govulncheck: govulncheck,
		DB:          db,
		Dir:         "testdata/synth",
		Patterns:    []string{pkg},
		Env:         []string{"GOTOOLCHAIN=local", "GOFLAGS=-mod=vendor", "GOPROXY=off", "GOWORK=off"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func buildGovulncheck(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds govulncheck")
	}
	tools := Tools{ModDir: filepath.Join("..", "..", "tools", "vulns")}
	bin, err := tools.BuildGovulncheck(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func mustBaseline(t *testing.T, lines ...string) *Baseline {
	t.Helper()
	b, err := ParseBaseline([]byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const vulnlibOpen = "GO-2099-0001\texample.com/vulnlib\topen\tno fixed release yet"

// TestGateSynthetic proves the gate on a real scan: a reachable finding
// not in the baseline fails it, the baseline entry lets it pass, and the
// entry fails it once the call is gone (the baseline only shrinks).
func TestGateSynthetic(t *testing.T) {
	bin := buildGovulncheck(t)
	patches := map[string]string{"0001": "0001-x.patch"}

	reach := scanSynth(t, bin, "./reach")
	if got := reach.Reachable(); len(got) != 1 || got[0].Key() != (Key{"GO-2099-0001", "example.com/vulnlib"}) {
		t.Fatalf("reachable findings of ./reach = %+v, want GO-2099-0001 in example.com/vulnlib", got)
	}
	f := reach.Reachable()[0]
	if f.Found != "v1.0.0" || f.Fixed != "v1.0.1" || len(f.Symbols) != 1 || f.Symbols[0] != "example.com/vulnlib.Bad" {
		t.Errorf("finding = %+v, want v1.0.0 -> v1.0.1 via example.com/vulnlib.Bad", f)
	}
	if len(f.Trace) < 2 || f.Trace[0] != "example.com/synth/reach.main" || f.Trace[len(f.Trace)-1] != "example.com/vulnlib.Bad" {
		t.Errorf("trace = %q, want example.com/synth/reach.main -> ... -> example.com/vulnlib.Bad", f.Trace)
	}
	if len(f.Aliases) != 1 || f.Aliases[0] != "CVE-2099-1001" {
		t.Errorf("aliases = %q, want CVE-2099-1001", f.Aliases)
	}

	g := Check(GateInput{Report: reach, Baseline: &Baseline{}, Patches: patches})
	if g.OK() || len(g.New) != 1 {
		t.Errorf("empty baseline: gate = %+v, want one new finding", g)
	}
	if msg := g.Explain("b.tsv"); !strings.Contains(msg, "new reachable vulnerability GO-2099-0001") {
		t.Errorf("explanation %q does not name the finding", msg)
	}
	if g := Check(GateInput{Report: reach, Baseline: mustBaseline(t, vulnlibOpen), Patches: patches}); !g.OK() {
		t.Errorf("baseline with the finding: gate fails: %s", g.Explain("b.tsv"))
	}
	fixed := mustBaseline(t, "GO-2099-0001\texample.com/vulnlib\tfixed:0001\tmoved to v1.0.1")
	if g := Check(GateInput{Report: reach, Baseline: fixed, Patches: patches}); len(g.StillFound) != 1 {
		t.Errorf("fixed:0001 but still reachable: gate = %+v, want it still found", g)
	}

	safe := scanSynth(t, bin, "./safe")
	if len(safe.Reachable()) != 0 || safe.Count(LevelPackage) != 1 {
		t.Fatalf("./safe: %+v, want GO-2099-0001 at package level only", safe.Findings)
	}
	if g := Check(GateInput{Report: safe, Baseline: &Baseline{}, Patches: patches}); !g.OK() {
		t.Errorf("not reachable, empty baseline: gate fails: %s", g.Explain("b.tsv"))
	}
	g = Check(GateInput{Report: safe, Baseline: mustBaseline(t, vulnlibOpen), Patches: patches})
	if len(g.Stale) != 1 || !strings.Contains(g.Explain("b.tsv"), "no longer found") {
		t.Errorf("entry no longer reachable: gate = %+v, want it stale", g)
	}
	// A fix recorded for a finding no longer reachable passes, if the patch exists.
	if g := Check(GateInput{Report: safe, Baseline: fixed, Patches: patches}); !g.OK() {
		t.Errorf("fixed and gone: gate fails: %s", g.Explain("b.tsv"))
	}
	if g := Check(GateInput{Report: safe, Baseline: fixed, Patches: nil}); len(g.BadPatch) != 1 {
		t.Errorf("fixed:0001 without patch 0001: gate = %+v, want a bad patch", g)
	}
}

func TestAdvisories(t *testing.T) {
	for v, want := range map[string]string{
		"v0.9.0": "", "v1.0.0": "1.2.0", "v1.1.9": "1.2.0", "v1.2.0": "",
		"v1.3.0": "1.3.4", "v1.3.4": "", "v2.0.0": "",
	} {
		as, err := Advisories("testdata/db", "example.com/synth", v)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && len(as) != 0:
			t.Errorf("%s: advisories %+v, want none", v, as)
		case want != "" && (len(as) != 1 || as[0].ID != "GO-2099-0002" || as[0].Fixed != want):
			t.Errorf("%s: advisories %+v, want GO-2099-0002 fixed in %s", v, as, want)
		}
	}
	as, _ := Advisories("testdata/db", "example.com/synth", "v1.0.0")
	g := Check(GateInput{Report: &Report{}, Baseline: &Baseline{}, Advisories: as})
	if len(g.Unrecorded) != 1 {
		t.Errorf("advisory without entry: gate = %+v, want it unrecorded", g)
	}
	b := mustBaseline(t, "GO-2099-0002\texample.com/synth\tnot-affected\tEnterprise only")
	if g := Check(GateInput{Report: &Report{}, Baseline: b, Advisories: as}); !g.OK() {
		t.Errorf("advisory with entry: gate fails: %s", g.Explain("b.tsv"))
	}
	if g := Check(GateInput{Report: &Report{}, Baseline: b}); len(g.Stale) != 1 {
		t.Errorf("entry of an advisory that no longer affects the line: gate = %+v, want it stale", g)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"GO-2099-0001\tm\topen", "4 tab-separated"},
		{"GO-2099-0001\tm\tmaybe\tr", "status"},
		{"CVE-2099-1\tm\topen\tr", "not a Go vulnerability ID"},
		{"GO-2099-0001\tm\topen\t ", "no reason"},
		{"GO-2099-0001\tm\tfixed:12\tr", "status"},
		{vulnlibOpen + "\n" + vulnlibOpen, "already on line 1"},
	} {
		_, err := ParseBaseline([]byte(c.line))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.line, err, c.want)
		}
	}
	b := mustBaseline(t, "# comment", "", vulnlibOpen, "GO-2099-0002\texample.com/synth\tfixed:0007\tpatch")
	if again := mustBaseline(t, string(b.Format())); len(again.Entries) != 2 || again.Entries[0].StatusText() != "fixed:0007" {
		t.Errorf("Format does not round-trip: %q", b.Format())
	}
}

// TestBuildToolsFreshCache builds the tools into a cache directory that
// does not exist yet, as on a fresh clone (CI once failed there).
func TestBuildToolsFreshCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds govulncheck and indexdb")
	}
	tools := Tools{
		ModDir: filepath.Join("..", "..", "tools", "vulns"),
		Cache:  filepath.Join(t.TempDir(), "out", "vulns"),
		Log:    io.Discard,
	}
	bin := filepath.Join(tools.Cache, "tools", "k")
	if err := tools.buildTools(context.Background(), bin); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"govulncheck", "indexdb"} {
		if !fileExists(filepath.Join(bin, name)) {
			t.Errorf("%s not built into %s", name, bin)
		}
	}
}
