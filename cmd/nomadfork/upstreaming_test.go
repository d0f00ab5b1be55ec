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
