package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/status"
)

func (p *project) exists(name string) bool {
	_, err := os.Stat(filepath.Join(p.dir, name))
	return err == nil
}

func TestDropVerifyProvesUpstreamCarriesThePatch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the sandbox's network namespaces need root")
	}
	p := newProject(t)
	when := time.Date(2023, 4, 4, 20, 9, 50, 0, time.UTC)
	// v1.3.0 makes F5 return 50 in a form of its own: the F5 patch conflicts
	// there, and its test passes there without it. v1.4.0 changes the same
	// line without that behaviour: the patch conflicts, its test fails.
	p.proxy.Add(t, fixture.Module{Path: upPath, Version: "v1.3.0", Time: when, Files: upstreamFiles(0, "return 5 }", "return 5 * 10 }")})
	p.proxy.Add(t, fixture.Module{Path: upPath, Version: "v1.4.0", Time: when, Files: upstreamFiles(0, "return 5 }", "return 5 + 0 }")})
	p.write("targets.json", `{"v1.3.0": {"example.com/up/api": "`+apiVersion+`"}, "v1.4.0": {"example.com/up/api": "`+apiVersion+`"}}`)
	p.mustRun("apply", "-allow-empty")
	p.write("nomad/lib/f5_test.go", "package lib\n\nimport \"testing\"\n\nfunc TestF5(t *testing.T) {\n\tif got := F5(); got != 50 {\n\t\tt.Fatalf(\"F5() = %d, want 50\", got)\n\t}\n}\n")
	p.git("add", "lib/f5_test.go")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "return 20 }", "return 200 }", "lib: make F20 return 200")
	p.mustRun("extract")
	old := p.snapshot()

	// Not carried by v1.4.0: the proof fails and the rebase stays stopped.
	p.mustFail("rebase", "-onto", "v1.4.0", "-new-line")
	r := p.mustFail("drop", "0001", "-verify", "-pr", "https://example.com/up/pull/1", "-line", "v1.4.0")
	containsAll(t, "unproven drop", r.stderr, "fail", "on upstream without it", "still stopped at 0001-lib-make-F5-return-50.patch")
	p.mustRun("rebase", "-abort", "-line", "v1.4.0")

	// Carried by v1.3.0: proven, dropped, and the rebase goes on.
	p.mustFail("rebase", "-onto", "v1.3.0", "-new-line")
	r = p.mustRun("drop", "0001", "-verify", "-pr", "https://example.com/up/pull/1", "-line", "v1.3.0")
	containsAll(t, "proven drop", r.stdout, "dropped 1", "check -line v1.3.0")
	containsAll(t, "CHANGELOG.md", p.read("CHANGELOG.md"),
		"## v1.3.0+fork.1",
		"0001-lib-make-F5-return-50.patch: dropped as upstream (in upstream v1.3.0, https://example.com/up/pull/1; its own tests pass on upstream without its production changes (./lib TestF5))",
		"0002-lib-make-F20-return-200.patch: applied cleanly")
	if p.exists("patches/v1.3.0/0002-lib-make-F20-return-200.patch") || !p.exists("patches/v1.3.0/0001-lib-make-F20-return-200.patch") {
		t.Errorf("the new line's series is not the F20 patch alone, renumbered")
	}
	p.mustRun("check", "-no-build", "-line", "v1.3.0")
	old.changelog = p.read("CHANGELOG.md")
	p.mustEqual(old)
}

func TestNestedRequirementsGoSum(t *testing.T) {
	p := newProject(t)
	when := time.Date(2023, 4, 4, 20, 9, 50, 0, time.UTC)
	for _, v := range []string{"v1.0.0", "v1.1.0"} {
		p.proxy.Add(t, fixture.Module{Path: "example.com/dep", Version: v, Time: when, Files: map[string]string{
			"go.mod": "module example.com/dep\n\ngo 1.21\n", "dep.go": "package dep\n\n// V is the version.\nconst V = \"" + v + "\"\n",
		}})
	}
	// Upstream v1.5.0 requires dep v1.0.0; the api version used with it
	// requires dep v1.1.0, whose go.sum lines upstream lacks.
	files := upstreamFiles(0, "")
	files["go.mod"] = "module example.com/up\n\ngo 1.21\n\nrequire (\n\texample.com/up/api v0.0.0\n\texample.com/dep v1.0.0\n)\n\nreplace example.com/up/api => ./api\n"
	files["go.sum"] = "example.com/dep v1.0.0 h1:AAAA=\nexample.com/dep v1.0.0/go.mod h1:BBBB=\nexample.com/zzz v1.0.0/go.mod h1:CCCC=\n"
	p.proxy.Add(t, fixture.Module{Path: upPath, Version: "v1.5.0", Time: when, Files: files})
	api2 := "v0.0.0-20230201000000-abcdefabcdef"
	p.proxy.Add(t, fixture.Module{Path: apiPath, Version: api2, Time: when, Files: map[string]string{
		"go.mod": "module example.com/up/api\n\ngo 1.21\n\nrequire example.com/dep v1.1.0\n",
		"api.go": "package api\n\n// Name names the api.\nconst Name = \"api2\"\n",
	}})
	p.write("targets.json", `{"v1.5.0": {"example.com/up/api": "`+api2+`"}}`)
	p.twoPatches()
	r := p.mustRun("rebase", "-onto", "v1.5.0", "-new-line")
	containsAll(t, "rebase", r.stdout, `go.sum gets "example.com/dep v1.1.0 h1:`)
	pinText := p.read("patches/v1.5.0/upstream.json")
	containsAll(t, "pin", pinText, `"go_sum": [`, `"example.com/dep v1.1.0 h1:`, `"example.com/dep v1.1.0/go.mod h1:`)
	sum := p.read("lines/v1.5.0/nomad/go.sum")
	if !strings.HasPrefix(sum, "example.com/dep v1.0.0 h1:AAAA=\nexample.com/dep v1.0.0/go.mod h1:BBBB=\nexample.com/dep v1.1.0 h1:") ||
		!strings.HasSuffix(sum, "example.com/zzz v1.0.0/go.mod h1:CCCC=\n") || strings.Count(sum, "\n") != 5 {
		t.Errorf("go.sum of the imported upstream:\n%s", sum)
	}
	if gomod := p.read("lines/v1.5.0/nomad/go.mod"); !strings.Contains(gomod, "example.com/dep v1.1.0") || strings.Contains(gomod, "v1.0.0") {
		t.Errorf("go.mod of the imported upstream does not require dep v1.1.0:\n%s", gomod)
	}
	// apply recomputes the lines and finds the pin's.
	p.mustRun("apply", "-line", "v1.5.0")
	p.write("patches/v1.5.0/upstream.json", strings.Replace(pinText, "example.com/dep v1.1.0/go.mod", "example.com/dep v1.1.1/go.mod", 1))
	p.expect(p.nomadfork("apply", "-line", "v1.5.0", "-force"), 1, "the go.sum lines its requirements need are", "but the pin records")
}

func TestStatusAllLinesWritesTheReadme(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.mustRun("rebase", "-onto", "v1.1.0", "-new-line")
	readme := "# up fork\n\nStatus per line:\n\n" + status.BeginMarker + "\nstale\n" + status.EndMarker + "\n\nThe end.\n"
	p.write("docs/status.md", readme)
	before := p.snapshot()

	r := p.mustRun("status", "-all-lines", "-markdown")
	wants := []string{
		"**Line v1.0.0** (default) against v1.0.2, v1.1.0, v1.2.0:",
		"| 0001 lib: make F5 return 50 | applies | 3-way | already upstream |",
		"| 0002 lib: make F20 return 200 | applies | applies | applies |",
		"**Line v1.1.0** against v1.2.0:",
		"| 0001 lib: make F5 return 50 | 3-way |\n| 0002 lib: make F20 return 200 | applies |",
	}
	containsAll(t, "status -all-lines -markdown", r.stdout, wants...)
	if p.read("docs/status.md") != readme {
		t.Errorf("-markdown changed docs/status.md")
	}

	p.mustRun("status", "-all-lines", "-doc")
	got := p.read("docs/status.md")
	containsAll(t, "docs/status.md", got, wants...)
	if !strings.HasPrefix(got, "# up fork\n\nStatus per line:\n\n"+status.BeginMarker+"\nGenerated by `nomadfork status -all-lines -doc` on ") ||
		!strings.HasSuffix(got, "\n"+status.EndMarker+"\n\nThe end.\n") || strings.Contains(got, "stale") {
		t.Errorf("docs/status.md outside the markers changed, or the old block stayed:\n%s", got)
	}
	p.mustEqual(before)

	r = p.mustFail("status", "-all-lines", "-line", "v1.1.0")
	containsAll(t, "-all-lines -line", r.stderr, "no -against or -line")
	r2 := p.mustFail("status", "-doc")
	containsAll(t, "-doc alone", r2.stderr, "-markdown and -doc go with -all-lines")
	if r.code != 2 || r2.code != 2 {
		t.Errorf("usage errors: exit %d and %d, want 2", r.code, r2.code)
	}
	p.write("docs/status.md", "# no markers\n")
	r = p.mustFail("status", "-all-lines", "-doc")
	containsAll(t, "no markers", r.stderr, "the markers must each appear once")
}

func TestTestRunsAtLeastOneSuite(t *testing.T) {
	p := newProject(t)
	r := p.mustFail("test", "-client=false", "-sim=false")
	if r.code != 2 || !strings.Contains(r.stderr, "-client=false -sim=false runs nothing") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
