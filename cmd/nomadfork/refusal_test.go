package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var adviceRE = regexp.MustCompile("`nomadfork ([^`]*)`")

// TestRefusalAdviceWorks runs, for each refusal, the command its advice
// names (the one that needs no hand work first) in the refused state.
func TestRefusalAdviceWorks(t *testing.T) {
	cases := []struct {
		name  string
		setup func(p *project)
		args  []string
		// advice is the advised command expected to work as it stands.
		advice string
	}{
		{"extract during a stopped apply", func(p *project) {
			p.conflictSeries()
			p.repin("v1.0.2")
			p.mustFail("apply")
		}, []string{"extract"}, "apply -abort"},
		{"apply over unexported commits", func(p *project) {
			p.twoPatches()
			p.commitEdit("lib/lib.go", "return 7 }", "return 70 }", "lib: make F7 return 70")
		}, []string{"apply"}, "extract"},
		{"extract over a hand-edited patch", func(p *project) {
			p.twoPatches()
			name := filepath.Join(p.lineDir(), "0001-lib-make-F5-return-50.patch")
			p.write(name, strings.Replace(p.read(name), "Why and what.", "Why, and what.", 1))
		}, []string{"extract"}, "apply"},
		{"a missing middle patch", func(p *project) {
			p.fourPatches()
			os.Remove(filepath.Join(p.dir, p.lineDir(), "0002-lib-make-F20-return-200.patch"))
		}, []string{"apply"}, "extract"},
		{"rebase onto an existing line", func(p *project) {
			p.twoPatches()
			p.mustRun("rebase", "-onto", "v1.0.1", "-new-line")
		}, []string{"rebase", "-onto", "v1.0.1"}, "apply -line v1.0.1"},
		{"rebase while a rebase is stopped", func(p *project) {
			p.conflictSeries()
			p.mustFail("rebase", "-onto", "v1.0.2")
		}, []string{"rebase", "-onto", "v1.1.0"}, "rebase -abort"},
		{"drop while an apply is stopped", func(p *project) {
			p.conflictSeries()
			p.repin("v1.0.2")
			p.mustFail("apply")
		}, []string{"drop", "0001", "-applied-upstream", "v1.1.0"}, "apply -abort"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newProject(t)
			c.setup(p)
			r := p.mustFail(c.args...)
			var advised []string
			for _, m := range adviceRE.FindAllStringSubmatch(r.stderr, -1) {
				advised = append(advised, m[1])
			}
			found := false
			for _, a := range advised {
				found = found || a == c.advice
			}
			if !found {
				t.Fatalf("refusal does not advise `nomadfork %s` (advises %q):\n%s", c.advice, advised, r.stderr)
			}
			p.mustRun(strings.Fields(c.advice)...)
		})
	}
}
