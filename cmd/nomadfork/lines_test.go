package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (p *project) exists(name string) bool {
	_, err := os.Stat(filepath.Join(p.dir, name))
	return err == nil
}

func TestUnknownLineNamesTheKnownOnes(t *testing.T) {
	p := newProject(t)
	for _, verb := range []string{"apply", "check", "build", "test", "extract", "status", "export", "drop", "rebase"} {
		args := []string{verb, "-line", "v9.9.9"}
		switch verb {
		case "drop":
			args = []string{verb, "0001", "-applied-upstream", "v1.0.1", "-line", "v9.9.9"}
		case "rebase":
			args = append(args, "-onto", "v10.0.0")
		}
		r := p.nomadfork(args...)
		if r.code != 2 {
			t.Errorf("%s -line v9.9.9: exit %d, want 2\n%s", verb, r.code, r.stderr)
		}
		containsAll(t, verb+" -line v9.9.9", r.stderr, `unknown line "v9.9.9"`, "the lines are v1.0.0")
	}
	// -continue of a line nothing is making is refused the same way.
	r := p.nomadfork("rebase", "-continue", "-line", "v9.9.9")
	if r.code != 2 || !strings.Contains(r.stderr, "the lines are v1.0.0") {
		t.Errorf("rebase -continue -line v9.9.9: exit %d\n%s", r.code, r.stderr)
	}
}

func TestLinePinMustNameItsLine(t *testing.T) {
	p := newProject(t)
	p.pin("v1.0.1", true)
	if err := os.Rename(filepath.Join(p.dir, "patches", "v1.0.1"), filepath.Join(p.dir, "patches", "v1.0.2")); err != nil {
		t.Fatal(err)
	}
	r := p.mustFail("apply", "-allow-empty", "-line", "v1.0.2")
	containsAll(t, "mismatched pin", r.stderr, "pins v1.0.1, but its line is v1.0.2")
}

func TestNewLineByRebase(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	old := p.snapshot()
	r := p.mustRun("rebase", "-onto", "v1.0.1", "-new-line")
	containsAll(t, "rebase -new-line", r.stdout, "2 applied cleanly", "check -line v1.0.1")
	// The old line is untouched and still the default.
	old.changelog = p.read("CHANGELOG.md")
	p.mustEqual(old)
	if got := strings.TrimSpace(p.read("patches/default-line")); got != "v1.0.0" {
		t.Errorf("default line = %s", got)
	}
	// The new line has its own pin, series and work tree.
	if !strings.Contains(p.read("patches/v1.0.1/upstream.json"), `"version": "v1.0.1"`) {
		t.Errorf("new line's pin:\n%s", p.read("patches/v1.0.1/upstream.json"))
	}
	for name, data := range old.patches {
		got := p.read(filepath.Join("patches", "v1.0.1", name))
		if got == "" || !strings.Contains(got, strings.SplitN(data, "\n", 5)[3]) {
			t.Errorf("new line lacks %s", name)
		}
	}
	if !p.exists("lines/v1.0.1/nomad/lib/lib.go") {
		t.Fatalf("no work tree at lines/v1.0.1/nomad")
	}
	if !strings.Contains(p.read("lines/v1.0.1/nomad/lib/lib.go"), "return 200 }") {
		t.Errorf("new line's work tree lacks the series")
	}
	containsAll(t, "CHANGELOG.md", p.read("CHANGELOG.md"), "## v1.0.1+fork.1", "## v1.0.0+fork.1")
	// Every verb works on it with -line.
	p.mustRun("check", "-no-build", "-line", "v1.0.1")
	r = p.mustRun("apply", "-line", "v1.0.1")
	containsAll(t, "apply -line", r.stdout, "upstream v1.0.1 plus 2 patch(es)")
	r = p.mustRun("extract", "-line", "v1.0.1")
	if strings.Count(r.stdout, "unchanged") != 2 {
		t.Errorf("extract -line v1.0.1:\n%s", r.stdout)
	}
	// Making it again is refused: it exists.
	r = p.mustFail("rebase", "-onto", "v1.0.1", "-new-line")
	containsAll(t, "second -new-line", r.stderr, "line v1.0.1 exists already")
	// The default line still works as before.
	p.mustRun("apply")
	p.mustEqual(old)
}

func TestNewLineConflictContinueAndAbort(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
	old := p.snapshot()

	// Abort: nothing of the new line is left.
	r := p.mustFail("rebase", "-onto", "v1.0.2", "-new-line")
	containsAll(t, "conflict report", r.stderr, "0001-lib-make-F10-return-100.patch conflicts", "rebase -continue", "-line v1.0.2")
	if p.exists("patches/v1.0.2") {
		t.Errorf("patches/v1.0.2 exists before the rebase completed")
	}
	// While it is stopped other verbs on the new line are refused as
	// unknown, and the old line is not blocked.
	p.expect(p.nomadfork("apply", "-line", "v1.0.2"), 2, `unknown line "v1.0.2"`)
	p.mustRun("apply")
	p.mustRun("rebase", "-abort", "-line", "v1.0.2")
	if p.exists("lines/v1.0.2") || p.exists("patches/v1.0.2") {
		t.Errorf("abort left the new line behind")
	}
	p.mustEqual(old)

	// Continue: the resolution is the new line's, the old line keeps its patch.
	p.mustFail("rebase", "-onto", "v1.0.2", "-new-line")
	lib := filepath.Join("lines", "v1.0.2", "nomad", "lib", "lib.go")
	content := p.read(lib)
	start, end := strings.Index(content, "<<<<<<<"), strings.Index(content, ">>>>>>>")
	end += strings.Index(content[end:], "\n") + 1
	p.write(lib, content[:start]+"func F10() int { return 100 } // merged\n"+content[end:])
	p.gitIn(filepath.Join("lines", "v1.0.2", "nomad"), "add", "lib/lib.go")
	r = p.mustRun("rebase", "-continue", "-line", "v1.0.2")
	containsAll(t, "continue", r.stdout, "1 resolved by hand")
	if !strings.Contains(p.read("patches/v1.0.2/0001-lib-make-F10-return-100.patch"), "// merged") {
		t.Errorf("the resolution is not in the new line's patch")
	}
	old.changelog = p.read("CHANGELOG.md")
	p.mustEqual(old)
	p.mustRun("check", "-no-build", "-line", "v1.0.2")
}

func TestRebaseMovesTheLine(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	p.write("patches/v1.0.0/baseline/client-v1.0.0.tsv", "pkg\tTestX\treason\n")
	p.mustRun("rebase", "-onto", "v1.0.1")
	if p.exists("patches/v1.0.0") {
		t.Errorf("patches/v1.0.0 still exists after the line moved")
	}
	if p.exists("patches/v1.0.1/baseline/client-v1.0.0.tsv") {
		t.Errorf("the old version's baseline moved along")
	}
	if got := strings.TrimSpace(p.read("patches/default-line")); got != "v1.0.1" {
		t.Errorf("default line = %s, want v1.0.1", got)
	}
	p.mustRun("check", "-no-build", "-line", "v1.0.1")
	p.expect(p.nomadfork("check", "-line", "v1.0.0"), 2, "the lines are v1.0.1")
}
