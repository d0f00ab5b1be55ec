package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// commitFile writes a new work tree file and commits it with trailers.
func (p *project) commitFile(file, content, subject string, trailers ...string) {
	p.t.Helper()
	p.write(filepath.Join("nomad", file), content)
	p.git("add", file)
	p.git("commit", "-q", "-m", subject+"\n\nWhy and what.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n"+strings.Join(trailers, "\n"))
}

// commitEditWith is commitEdit with extra trailers.
func (p *project) commitEditWith(file, old, new, subject string, trailers ...string) {
	p.t.Helper()
	path := filepath.Join("nomad", file)
	content := p.read(path)
	if !strings.Contains(content, old) {
		p.t.Fatalf("%s does not contain %q", file, old)
	}
	p.write(path, strings.Replace(content, old, new, 1))
	p.git("commit", "-q", "-a", "-m", subject+"\n\nWhy and what.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n"+strings.Join(trailers, "\n"))
}

// graphSeries records three patches: 0001 adds lib.G in a new file, 0002
// changes F5 (standalone), 0003 makes F20 call G, so it needs 0001.
func (p *project) graphSeries(declare bool) {
	p.t.Helper()
	p.mustRun("apply", "-allow-empty")
	p.commitFile("lib/g.go", "package lib\n\n// G returns 19.\nfunc G() int { return 19 }\n", "lib: add G")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	var trailers []string
	if declare {
		trailers = append(trailers, "Depends-On: 0001")
	}
	p.commitEditWith("lib/lib.go", "return 20 }", "return G() + 1 }", "lib: make F20 use G", trailers...)
	p.mustRun("extract")
}

// TestCheckDependencyGraph also covers the per-PR export of the same series
// (one fixture, fewer builds).
func TestCheckDependencyGraph(t *testing.T) {
	p := newProject(t)
	p.graphSeries(true)
	r := p.mustRun("check")
	containsAll(t, "check output", r.stdout,
		"0001-lib-add-G.patch  standalone: base only",
		"0002-lib-make-F5-return-50.patch  standalone: base only",
		"0003-lib-make-F20-use-G.patch  base + 0001",
		"compiling prefix 1..1 (0001-lib-add-G.patch): go list -export",
		"compiling prefix 1..2 (0002-lib-make-F5-return-50.patch): go list -export",
		"building prefix 1..3 (0003-lib-make-F20-use-G.patch): go build",
		"compiling 0002-lib-make-F5-return-50.patch on the bare base",
		"compiling 0003-lib-make-F20-use-G.patch on the base + 0001",
	)
	testExportPerPR(t, p)
}

func TestCheckUndeclaredDependencyBuild(t *testing.T) {
	p := newProject(t)
	p.graphSeries(false)
	// Every prefix builds and applies exactly: only the graph shows that
	// 0003 needs 0001.
	r := p.mustRun("check", "-no-build")
	if !strings.Contains(r.stdout, "0003-lib-make-F20-use-G.patch applies on the bare base") {
		t.Errorf("check -no-build output:\n%s", r.stdout)
	}
	r = p.mustFail("check")
	containsAll(t, "check failure", r.stderr,
		"0003-lib-make-F20-use-G.patch: does not build on the bare base",
		"undefined: G",
		"it likely needs 0001-lib-add-G.patch, which adds G (add `Depends-On: 0001`",
	)
}

// TestCheckPrefixesOnly: -prefixes-only (make test) builds every prefix
// but only applies each patch on its dependencies, so the undeclared
// dependency that the full check finds by building (above) passes it.
func TestCheckPrefixesOnly(t *testing.T) {
	p := newProject(t)
	p.graphSeries(false)
	r := p.mustRun("check", "-prefixes-only")
	containsAll(t, "check -prefixes-only output", r.stdout,
		"compiling prefix 1..1 (0001-lib-add-G.patch)",
		"building prefix 1..3 (0003-lib-make-F20-use-G.patch)",
		"0003-lib-make-F20-use-G.patch applies on the bare base",
	)
	if strings.Contains(r.stdout, "compiling 0003") {
		t.Errorf("check -prefixes-only built a patch on its dependencies:\n%s", r.stdout)
	}
	p.expect(p.nomadfork("check", "-prefixes-only", "-tip-only"), 2, "exclude each other")
}

func TestCheckUndeclaredDependencyApply(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	// 0002's context is 0001's line: it cannot apply without it.
	p.commitEdit("lib/lib.go", "// F5 returns 5.\nfunc F5() int { return 50 }", "// F5 returns fifty.\nfunc F5() int { return 50 }", "lib: document F5")
	p.mustRun("extract")
	r := p.mustFail("check", "-no-build")
	containsAll(t, "check failure", r.stderr,
		"0002-lib-document-F5.patch: does not apply on the bare base (git am, no 3-way)",
		"it likely needs 0001-lib-make-F5-return-50.patch, which also changes lib/lib.go (add `Depends-On: 0001`",
	)
	// Declaring it makes the check pass.
	p.write(filepath.Join(p.lineDir(), "0002-lib-document-F5.patch"), strings.Replace(p.read(filepath.Join(p.lineDir(), "0002-lib-document-F5.patch")),
		"Origin: nomad-client-fork\n", "Origin: nomad-client-fork\nDepends-On: 0001\n", 1))
	p.mustRun("apply", "-force")
	r = p.mustRun("check", "-no-build")
	if !strings.Contains(r.stdout, "0002-lib-document-F5.patch  base + 0001") {
		t.Errorf("graph lacks the declared dependency:\n%s", r.stdout)
	}
}

func TestCheckLintsDependsOn(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEditWith("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50", "Depends-On: 0002")
	p.commitEdit("lib/lib.go", "return 20 }", "return 200 }", "lib: make F20 return 200")
	p.mustRun("extract")
	r := p.mustFail("check", "-no-build")
	if !strings.Contains(r.stderr, "0001-lib-make-F5-return-50.patch: Depends-On: 0002 is a later patch") {
		t.Errorf("check does not reject a forward dependency:\n%s", r.stderr)
	}
}

// testExportPerPR checks that export writes one PR per patch of the
// graphSeries(true) series, each with its dependencies only.
func testExportPerPR(t *testing.T, p *project) {
	r := p.mustRun("export", "-verify")
	if n := strings.Count(r.stdout, "the exported tree builds"); n != 3 {
		t.Errorf("export -verify built %d PR trees, want 3:\n%s", n, r.stdout)
	}
	mbox := p.read("out/export/0003-lib-make-F20-use-G.mbox")
	containsAll(t, "0003's mbox", mbox, "Subject: [PATCH] lib: add G", "Subject: [PATCH] lib: make F20 use G")
	for _, unwanted := range []string{"make F5 return 50", "Depends-On:"} {
		if strings.Contains(mbox, unwanted) {
			t.Errorf("0003's mbox holds %q", unwanted)
		}
	}
	if got := p.read("out/export/0002-lib-make-F5-return-50.mbox"); strings.Contains(got, "lib: add G") || !strings.Contains(got, "make F5 return 50") {
		t.Errorf("0002's mbox is not 0002 alone:\n%s", got)
	}
	if got := p.git("log", "--format=%s", "upstream..export/0003-lib-make-F20-use-G"); got != "lib: make F20 use G\nlib: add G" {
		t.Errorf("branch export/0003 holds %q", got)
	}
	// The whole series stays available as one mbox.
	if got := p.read("out/export/series.mbox"); strings.Count(got, "Subject: [PATCH") != 3 {
		t.Errorf("series.mbox does not hold the 3 patches")
	}
}
