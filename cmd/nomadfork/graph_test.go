package main

import (
	"path/filepath"
	"strings"
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
