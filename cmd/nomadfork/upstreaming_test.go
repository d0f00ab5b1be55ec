package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot captures what a failed or aborted rebase must leave alone.
type snapshot struct {
	status, head, base, pin, changelog string
	patches                            map[string]string
}

func (p *project) snapshot() snapshot {
	p.t.Helper()
	return snapshot{
		status:    p.git("status", "--porcelain", "--untracked-files=all"),
		head:      p.git("rev-parse", "HEAD"),
		base:      p.git("rev-parse", "upstream"),
		pin:       p.read(filepath.Join(p.lineDir(), "upstream.json")),
		changelog: p.read("CHANGELOG.md"),
		patches:   p.patchFiles(),
	}
}

func (p *project) mustEqual(want snapshot) {
	p.t.Helper()
	got := p.snapshot()
	if got.status != want.status || got.head != want.head || got.base != want.base ||
		got.pin != want.pin || got.changelog != want.changelog || len(got.patches) != len(want.patches) {
		p.t.Fatalf("state changed:\nwant %+v\ngot  %+v", want, got)
	}
	for name, data := range want.patches {
		if got.patches[name] != data {
			p.t.Fatalf("%s changed", name)
		}
	}
}

func TestRebaseClean(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	r := p.mustRun("rebase", "-onto", "v1.0.1")
	if !strings.Contains(r.stdout, "2 applied cleanly") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	if !strings.Contains(p.read(filepath.Join(p.lineDir(), "upstream.json")), `"version": "v1.0.1"`) {
		t.Errorf("pin not moved")
	}
	if !strings.Contains(p.read("CHANGELOG.md"), "## v1.0.1+fork.1 (unreleased)\n\n- Rebased onto upstream v1.0.1 (from v1.0.0)") {
		t.Errorf("changelog entry missing:\n%s", p.read("CHANGELOG.md"))
	}
	// The refreshed series applies exactly to the new base.
	p.mustRun("check", "-no-build")
	p.mustRun("apply")
}

func TestRebaseThreeWay(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	r := p.mustRun("rebase", "-onto", "v1.1.0")
	if !strings.Contains(r.stdout, "1 applied cleanly, 1 by 3-way merge") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	p.mustRun("check", "-no-build")
}

func TestRebaseConflictContinue(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
	before := p.snapshot()
	r := p.mustFail("rebase", "-onto", "v1.0.2")
	containsAll(t, "conflict report", r.stderr, "0001-lib-make-F10-return-100.patch conflicts", "lib/lib.go", "rebase -continue", "rebase -abort")
	// Nothing of the repository changed while the rebase is stopped.
	if p.read(filepath.Join(p.lineDir(), "upstream.json")) != before.pin || len(p.patchFiles()) != 1 {
		t.Fatalf("pin or patches changed before the rebase completed")
	}
	p.resolve("lib/lib.go", "func F10() int { return 100 } // merged\n")
	r = p.mustRun("rebase", "-continue")
	if !strings.Contains(r.stdout, "1 resolved by hand") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	if !strings.Contains(p.read(filepath.Join(p.lineDir(), "0001-lib-make-F10-return-100.patch")), "// merged") {
		t.Errorf("the resolution is not in the patch")
	}
	p.mustRun("check", "-no-build")
}

func TestRebaseConflictAbortRestoresEverything(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	p.commitEdit("lib/lib.go", "func F10() int { return 10 }", "func F10() int { return 100 }", "lib: make F10 return 100")
	p.mustRun("extract")
	before := p.snapshot()
	p.mustFail("rebase", "-onto", "v1.0.2")
	r := p.mustFail("apply")
	if !strings.Contains(r.stderr, "stopped") && !strings.Contains(r.stderr, "refusing") {
		t.Errorf("apply during a stopped rebase: %s", r.stderr)
	}
	p.mustRun("rebase", "-abort")
	p.mustEqual(before)
	p.mustRun("apply")
	p.mustEqual(before)
	p.mustFail("rebase", "-abort")
}

func TestRebaseDropsUpstreamedPatchByReverseCheck(t *testing.T) {
	p := newProject(t)
	p.twoPatches()
	r := p.mustRun("rebase", "-onto", "v1.2.0")
	if !strings.Contains(r.stdout, "dropped 1, applied upstream: 0001-lib-make-F5-return-50.patch (the target already holds its change") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	files := p.patchFiles()
	if len(files) != 1 || files["0001-lib-make-F20-return-200.patch"] == "" {
		t.Errorf("patches after drop: %v", keys(files))
	}
	if !strings.Contains(p.read("CHANGELOG.md"), "dropped 1") {
		t.Errorf("changelog lacks the drop")
	}
	p.mustRun("check", "-no-build")
}

func TestExportAppliesWithPlainGitAm(t *testing.T) {
	p := newProject(t)
	p.mustRun("apply", "-allow-empty")
	p.commitEdit("lib/lib.go", "return 5 }", "return 50 }", "lib: make F5 return 50")
	content := p.read("nomad/lib/lib.go")
	p.write("nomad/lib/lib.go", strings.Replace(content, "return 20 }", "return 200 }", 1))
	p.git("commit", "-q", "-a", "-m", "lib: fix F20\n\nIt was wrong.\n\nBug: https://github.com/example/up/issues/3\n"+
		"Upstream-Status: submitted https://github.com/example/up/pull/42\nOrigin: nomad-client-fork\nRelease-Note: bug")
	p.mustRun("extract")
	r := p.mustRun("export", "-verify")
	if !strings.Contains(r.stdout, "the exported tree builds") {
		t.Errorf("export -verify:\n%s", r.stdout)
	}
	mbox := p.read("out/export/series.mbox")
	for _, want := range []string{
		".changelog/fork-0001.txt", "+```release-note:improvement\n+lib: make F5 return 50\n+```",
		".changelog/42.txt", "+```release-note:bug\n+lib: fix F20\n+```", "Bug: https://github.com/example/up/issues/3",
	} {
		if !strings.Contains(mbox, want) {
			t.Errorf("mbox lacks %q", want)
		}
	}
	for _, unwanted := range []string{"Upstream-Status:", "Origin:", "Release-Note:"} {
		if strings.Contains(mbox, unwanted) {
			t.Errorf("mbox carries fork trailer %q", unwanted)
		}
	}
	if got := p.git("branch", "--list", "export/*", "--format=%(refname:short)"); got != "export/0001-lib-make-F5-return-50\nexport/0002-lib-fix-F20" {
		t.Errorf("export branches = %q", got)
	}
	// Independently of -verify: plain git am onto a fresh upstream tree.
	fresh := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"}, {"fetch", "-q", filepath.Join(p.dir, "nomad"), "upstream"}, {"checkout", "-q", "FETCH_HEAD"},
		{"-c", "user.name=x", "-c", "user.email=x@x", "am", filepath.Join(p.dir, "out/export/series.mbox")},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = fresh
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(fresh, ".changelog", "42.txt")); err != nil {
		t.Errorf("changelog entry not in the applied tree: %v", err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
