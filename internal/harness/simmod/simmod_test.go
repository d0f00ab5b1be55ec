package simmod

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

const modPath = "example.com/up"

// goIn runs the go command in dir with m's GOFLAGS and returns its output.
func goIn(t *testing.T, dir string, m Module, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = build.GoEnvFlags(append(m.GoFlags(), "-modcacherw"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// project is a repository with a default line's work tree (nomad/, whose
// lib has Version only), a v1.6.0 line's (lines/v1.6.0/nomad/, whose lib
// also has New and needs example.com/dep, which its go.mod replaces with a
// fixed version) and a sim module building against nomad/, with a file
// only lines on v1.6 build.
func project(t *testing.T) (root string) {
	t.Helper()
	proxy := fixture.NewProxy(t)
	for _, v := range []string{"v1.0.0", "v1.0.1"} {
		files := map[string]string{"go.mod": "module example.com/dep\n\ngo 1.20\n", "dep.go": "package dep\n\nfunc Dep() int { return 1 }\n"}
		if v == "v1.0.1" {
			files["fixed.go"] = "package dep\n\nfunc Fixed() bool { return true }\n"
		}
		proxy.Add(t, fixture.Module{Path: "example.com/dep", Version: v, Time: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC), Files: files})
	}
	root = t.TempDir()
	tree := func(dir string, extra map[string]string, gomod string) {
		files := map[string]string{
			dir + "/go.mod":     gomod,
			dir + "/lib/lib.go": "package lib\n\nfunc Version() string { return \"" + dir + "\" }\n",
			dir + "/api/go.mod": "module example.com/up/api\n\ngo 1.20\n",
			dir + "/api/api.go": "package api\n\nconst Name = \"api\"\n",
		}
		for name, content := range extra {
			files[dir+"/"+name] = content
		}
		fixture.WriteFiles(t, root, files)
	}
	tree("nomad", nil, "module example.com/up\n\ngo 1.20\n\nrequire example.com/up/api v0.0.0\n\nreplace example.com/up/api => ./api\n")
	tree("lines/v1.6.0/nomad", map[string]string{
		"lib/new.go": "package lib\n\nimport \"example.com/dep\"\n\nfunc New() bool { return dep.Fixed() }\n",
	}, "module example.com/up\n\ngo 1.20\n\nrequire (\n\texample.com/up/api v0.0.0\n\texample.com/dep v1.0.0\n)\n\n"+
		"replace example.com/up/api => ./api\n\nreplace example.com/dep => example.com/dep v1.0.1\n")
	fixture.WriteFiles(t, root, map[string]string{
		"sim/go.mod": "module example.com/sim\n\ngo 1.20\n\nreplace (\n\texample.com/up => ../nomad\n\texample.com/up/api => ../nomad/api\n)\n\n" +
			"require (\n\texample.com/up v0.0.0-00010101000000-000000000000\n\texample.com/up/api v0.0.0\n)\n",
		"sim/go.sum":        "",
		"sim/sim.go":        "package sim\n\nimport (\n\t\"example.com/up/api\"\n\t\"example.com/up/lib\"\n)\n\nfunc Version() string { return lib.Version() + api.Name }\n",
		"sim/sim_v1_6.go":   "//go:build nomad_v1_6\n\npackage sim\n\nimport \"example.com/up/lib\"\n\nfunc New() bool { return lib.New() }\n",
		"sim/sim_test.go":   "package sim\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestVersion(t *testing.T) {\n\tif got := Version(); got != os.Getenv(\"WANT\") {\n\t\tt.Fatalf(\"Version() = %q\", got)\n\t}\n}\n",
		"sim/cmd/x/main.go": "package main\n\nimport \"example.com/sim\"\n\nfunc main() { println(sim.Version()) }\n",
	})
	// The go command leaves the module cache read-only; the temporary
	// directory's removal needs it writable.
	t.Cleanup(func() { _, _ = goIn(t, filepath.Join(root, "sim"), Module{}, "clean", "-modcache") })
	return root
}

func TestForDefaultLineUsesSimGoMod(t *testing.T) {
	root := project(t)
	sim := filepath.Join(root, "sim")
	m, err := For(context.Background(), sim, filepath.Join(root, "nomad"), modPath, "v1.5.3", filepath.Join(root, "out", "sim"), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if m.ModFile != "" || m.Tags != nil || m.GoFlags() != nil {
		t.Errorf("the line sim/go.mod names: want sim/go.mod as it is, no tags; got %+v", m)
	}
	if _, err := os.Stat(filepath.Join(root, "out", "sim")); !os.IsNotExist(err) {
		t.Errorf("nothing generated expected, got %v", err)
	}
	if out, err := goIn(t, sim, m, "vet", "./..."); err != nil {
		t.Fatalf("go vet against nomad/: %v\n%s", err, out)
	}
}

func TestForOtherLineGeneratesGoMod(t *testing.T) {
	root := project(t)
	sim := filepath.Join(root, "sim")
	simMod, _ := os.ReadFile(filepath.Join(sim, "go.mod"))
	tree := filepath.Join(root, "lines", "v1.6.0", "nomad")
	scratch := filepath.Join(root, "out", "sim", "v1.6.0")
	m, err := For(context.Background(), sim, tree, modPath, "v1.6.0", scratch, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-modfile=" + filepath.Join(scratch, "go.mod"), "-tags=" + TagV1_6}
	if !reflect.DeepEqual(m.GoFlags(), want) {
		t.Errorf("GoFlags = %q, want %q", m.GoFlags(), want)
	}
	gen, err := os.ReadFile(m.ModFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"// Generated by nomadfork from " + filepath.Join(sim, "go.mod") + " for the work tree " + tree + "; do not edit.\nmodule example.com/sim\n",
		"example.com/up => " + tree,
		"example.com/up/api => " + filepath.Join(tree, "api"),
		// The work tree's own replacement, which does not apply to sim
		// through the requirement.
		"example.com/dep => example.com/dep v1.0.1",
	} {
		if !strings.Contains(string(gen), line) {
			t.Errorf("generated go.mod lacks %q:\n%s", line, gen)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(sim, "go.mod")); string(got) != string(simMod) {
		t.Errorf("sim/go.mod changed:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(sim, "go.sum")); len(got) != 0 {
		t.Errorf("sim/go.sum changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(scratch, "go.sum")); err != nil {
		t.Errorf("no go.sum next to the generated go.mod: %v", err)
	}

	// The tagged file builds against the line's tree (it uses what only
	// that tree and the replaced dependency have), and go commands the
	// tests run see the same build through GOFLAGS.
	if out, err := goIn(t, sim, m, "vet", "./..."); err != nil {
		t.Fatalf("go vet against the line: %v\n%s", err, out)
	}
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir = sim
	cmd.Env = append(build.GoEnvFlags(append(m.GoFlags(), "-modcacherw")), "WANT=lines/v1.6.0/nomadapi")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("go test against the line: %v\n%s", err, out)
	}
	if out, err := goIn(t, sim, m, "list", "-m", "example.com/dep"); err != nil || strings.TrimSpace(out) != "example.com/dep v1.0.0 => example.com/dep v1.0.1" {
		t.Errorf("go list -m example.com/dep = %q, %v", out, err)
	}
	// The tag matters: with sim/go.mod the tagged file does not compile
	// (nomad/ lacks lib.New).
	if out, err := goIn(t, sim, Module{Tags: m.Tags}, "vet", "./..."); err == nil || !strings.Contains(out, "undefined: lib.New") {
		t.Errorf("the tagged file against nomad/: want undefined: lib.New, got %v\n%s", err, out)
	}
}

func TestForRefusesSimWithoutReplace(t *testing.T) {
	root := project(t)
	sim := filepath.Join(root, "sim")
	fixture.WriteFiles(t, root, map[string]string{"sim/go.mod": "module example.com/sim\n\ngo 1.20\n\nrequire example.com/up v1.0.0\n"})
	_, err := For(context.Background(), sim, filepath.Join(root, "nomad"), modPath, "v1.5.3", filepath.Join(root, "out", "sim"), os.Stderr)
	if err == nil || !strings.Contains(err.Error(), "no replace directive points example.com/up at a directory") {
		t.Errorf("For = %v, want the missing replace named", err)
	}
}

func TestTags(t *testing.T) {
	for v, want := range map[string][]string{"v1.5.3": nil, "v1.5.6": nil, "v1.6.0": {TagV1_6}, "v1.6.1": {TagV1_6}} {
		if got := Tags(v); !reflect.DeepEqual(got, want) {
			t.Errorf("Tags(%s) = %q, want %q", v, got, want)
		}
	}
}
