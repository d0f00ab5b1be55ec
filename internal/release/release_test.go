package release

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
)

var testTime = time.Date(2023, 4, 4, 20, 9, 50, 0, time.UTC)

// writeLayout writes a package layout like upstream's .release/linux (the
// test's own files) under dir.
func writeLayout(t *testing.T, dir string) string {
	t.Helper()
	layout := filepath.Join(dir, LayoutDir)
	for name, content := range map[string]string{
		"package/etc/nomad.d/nomad.hcl":                "data_dir = \"/opt/nomad/data\"\n",
		"package/etc/nomad.d/nomad.env":                "# environment\n",
		"package/usr/lib/systemd/system/nomad.service": "[Unit]\nDescription=test\n",
		"preinst":  "#!/bin/sh\nexit 0\n",
		"postinst": "#!/bin/sh\nexit 0\n",
		"postrm":   "#!/bin/sh\nexit 0\n",
	} {
		p := filepath.Join(layout, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return layout
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func TestZip_ExactlyNomadAndReproducible(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "nomad-bin")
	writeFile(t, bin, "binary", 0o700)
	a, b := filepath.Join(dir, "a.zip"), filepath.Join(dir, "b.zip")
	if err := writeZip(a, bin, testTime); err != nil {
		t.Fatal(err)
	}
	// Another mtime of the input must not matter.
	if err := os.Chtimes(bin, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := writeZip(b, bin, testTime); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Fatal("two zips of the same binary differ")
	}
	out := filepath.Join(dir, "nomad")
	if err := CheckZip(a, out); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "binary" {
		t.Fatalf("extracted %q", got)
	}
}

func TestCheckZip_RefusesOtherContent(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "other")
	writeFile(t, bin, "binary", 0o755)
	z := filepath.Join(dir, "z.zip")
	if err := writeZip(z, bin, testTime); err != nil {
		t.Fatal(err)
	}
	// A zip whose one file is not named nomad.
	data, _ := os.ReadFile(z)
	bad := bytes.ReplaceAll(data, []byte("nomad"), []byte("nomaD"))
	writeFile(t, z, string(bad), 0o644)
	err := CheckZip(z, filepath.Join(dir, "x"))
	if err == nil || !strings.Contains(err.Error(), "exactly") {
		t.Fatalf("CheckZip = %v, want an error naming the content", err)
	}
}

func TestDeb_LayoutFieldsAndReproducible(t *testing.T) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	dir := t.TempDir()
	layout := writeLayout(t, dir)
	bin := filepath.Join(dir, "nomad")
	writeFile(t, bin, "#!/bin/sh\necho nomad\n", 0o755)
	p := Package{Version: "1.5.3+fork.1", Arch: "arm64", Binary: bin, Layout: layout, MTime: testTime}
	var debs [2][]byte
	for i := range debs {
		out := filepath.Join(dir, "out"+string(rune('a'+i)))
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		name, err := writeDeb(out, p)
		if err != nil {
			t.Fatal(err)
		}
		if name != "nomad_1.5.3+fork.1-1_arm64.deb" {
			t.Fatalf("package name %s", name)
		}
		if err := CheckDeb(context.Background(), filepath.Join(out, name), p.Version, p.Arch, layout); err != nil {
			t.Fatal(err)
		}
		debs[i], _ = os.ReadFile(filepath.Join(out, name))
		if err := os.Chtimes(filepath.Join(layout, "postinst"), time.Now(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(debs[0], debs[1]) {
		t.Fatal("two packages of the same inputs differ")
	}
	// The check compares against the layout: a file the package lacks fails.
	writeFile(t, filepath.Join(layout, "package/etc/nomad.d/extra.hcl"), "x", 0o644)
	err := CheckDeb(context.Background(), filepath.Join(dir, "outa", "nomad_1.5.3+fork.1-1_arm64.deb"), p.Version, p.Arch, layout)
	if err == nil || !strings.Contains(err.Error(), "extra.hcl") {
		t.Fatalf("CheckDeb with a layout file missing from the package = %v", err)
	}
	err = CheckDeb(context.Background(), filepath.Join(dir, "outa", "nomad_1.5.3+fork.1-1_arm64.deb"), "1.5.3+fork.2", p.Arch, layout)
	if err == nil {
		t.Fatal("CheckDeb accepted the package as another version")
	}
}

// The package replaces the official nomad package (same name) and the
// official one replaces it back: dpkg orders the versions so.
func TestDebVersion_Ordering(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg not installed")
	}
	fork := DebVersion("1.5.3+fork.1")
	for _, c := range []struct{ a, op, b string }{
		{fork, "gt", "1.5.3-1"},                  // upgrades over the official 1.5.3
		{fork, "lt", "1.5.4-1"},                  // the next official release upgrades over it
		{fork, "lt", DebVersion("1.5.3+fork.2")}, // fork releases in order
		{fork, "lt", "1.6.1-1"},
	} {
		if err := exec.Command("dpkg", "--compare-versions", c.a, c.op, c.b).Run(); err != nil {
			t.Errorf("dpkg --compare-versions %s %s %s: false", c.a, c.op, c.b)
		}
	}
}

func TestSumsDiffNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "b"), "b", 0o644)
	writeFile(t, filepath.Join(dir, "a"), "a", 0o644)
	sums, err := Sums(dir, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	want := "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a\n" +
		"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b\n"
	if sums != want {
		t.Fatalf("Sums =\n%s\nwant\n%s", sums, want)
	}
	if got := Names(sums); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Names = %q", got)
	}
	if d := Diff(sums, sums); len(d) != 0 {
		t.Fatalf("Diff of equal sums = %q", d)
	}
	writeFile(t, filepath.Join(dir, "b"), "B", 0o644)
	other, _ := Sums(dir, []string{"a", "b", "c"[:0] + "a"})
	if d := Diff(sums, other); len(d) != 1 || !strings.HasPrefix(d[0], "b: ") {
		t.Fatalf("Diff = %q, want b only", d)
	}
	if d := Diff(sums, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a\n"); len(d) != 1 || !strings.Contains(d[0], "missing") {
		t.Fatalf("Diff = %q, want b missing", d)
	}
}

func patchWith(t *testing.T, name, subject, trailers string) series.Patch {
	t.Helper()
	data := "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n" +
		"From: A <a@example.com>\nDate: Tue, 4 Apr 2023 20:09:50 +0000\n" +
		"Subject: [PATCH] " + subject + "\n\nBody.\n\n" + trailers + "---\n" +
		"diff --git a/x b/x\n"
	m, err := metadata.Parse([]byte(data))
	return series.Patch{Name: name, Number: 1, Data: []byte(data), Meta: m, MetaErr: err}
}

func TestNotes(t *testing.T) {
	stamp := build.Stamp{Metadata: "fork.1", Revision: "abc", Date: "2023-04-04T20:09:50Z"}
	p := patchWith(t, "0001-client-x.patch", "client: x", "Upstream-Status: submitted https://github.com/hashicorp/nomad/pull/1\n")
	notes, err := Notes("v1.5.3", "1.5.3+fork.1", stamp, []series.Patch{p}, "| ID |\n|---|\n| CVE-2025-4922 |\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Nomad 1.5.3+fork.1", "| 0001 | client: x | submitted https://github.com/hashicorp/nomad/pull/1 |", build.Toolchain, "abc", "1.5.3+fork.1-1"} {
		if !strings.Contains(notes, want) {
			t.Errorf("RELEASE.md lacks %q:\n%s", want, notes)
		}
	}
	bad := patchWith(t, "0002-client-y.patch", "client: y", "")
	if !strings.Contains(notes, "## Security") || !strings.Contains(notes, "| CVE-2025-4922 |") || !strings.Contains(notes, "safe to run as") {
		t.Errorf("RELEASE.md lacks the line's security table:\n%s", notes)
	}
	if _, err := Notes("v1.5.3", "1.5.3+fork.1", stamp, []series.Patch{bad}, ""); err == nil {
		t.Fatal("Notes accepted a patch without Upstream-Status")
	}
}

func TestJudgeUI(t *testing.T) {
	stub := "<!DOCTYPE html>\n<html>\n<p>" + StubText + ". To get Nomad UI do one of the following:</p>"
	if err := JudgeUI(200, stub); err == nil || !strings.Contains(err.Error(), "stub") {
		t.Fatalf("JudgeUI(stub) = %v", err)
	}
	index := `<html><head><script src="/ui/assets/vendor-1.js"></script><script src="/ui/assets/nomad-ui-2.js"></script></head></html>`
	if err := JudgeUI(200, index); err != nil {
		t.Fatalf("JudgeUI(index) = %v", err)
	}
	if err := JudgeUI(404, "Not Found"); err == nil {
		t.Fatal("JudgeUI(404) = nil")
	}
	if err := JudgeUI(200, "<html></html>"); err == nil {
		t.Fatal("JudgeUI(a page without the UI) = nil")
	}
}

func TestCheckELF(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := build.Host().Arch
	if err := CheckELF(self, host); err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[host]
	if err := CheckELF(self, other); err == nil {
		t.Fatalf("CheckELF(%s binary, %s) = nil", host, other)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x"), "#!/bin/sh\n", 0o755)
	if err := CheckELF(filepath.Join(dir, "x"), host); err == nil {
		t.Fatal("CheckELF(a script) = nil")
	}
}

// toyTree makes a git work tree holding a tiny main package and a package
// layout, committed at a fixed time, standing in for a line's work tree.
func toyTree(t *testing.T) *git.Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeLayout(t, dir)
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/toy\n\ngo 1.20\n", 0o644)
	// main.go switches Go's security limits on, as each line's series does
	// for nomad: the build refuses a binary without them.
	writeFile(t, filepath.Join(dir, "main.go"), "//go:debug httpcookiemaxnum=3000\n//go:debug urlmaxqueryparams=10000\n//go:debug urlstrictcolons=1\n//go:debug rsa1024min=1\n\npackage main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"Nomad v1.5.3+fork.1\") }\n", 0o644)
	env := append(os.Environ(), "GIT_AUTHOR_DATE=2023-04-04T20:09:50Z", "GIT_COMMITTER_DATE=2023-04-04T20:09:50Z",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "toy"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return &git.Repo{Dir: dir}
}

func toyOptions(t *testing.T, tree *git.Repo, dist string) Options {
	p := patchWith(t, "0001-client-x.patch", "client: x", "Upstream-Status: pending\n")
	return Options{
		Tree: tree, Upstream: "v1.5.3", Fork: "fork.1", Patches: []series.Patch{p},
		Dist: dist, Scratch: filepath.Join(filepath.Dir(dist), "scratch"), Log: &bytes.Buffer{},
	}
}

// A release of a toy tree: every artifact, identical on a second run,
// verified by a rebuild; a tampered release fails the verification; an
// interrupted run leaves the release there before; a tree with
// uncommitted changes is refused.
func TestMake_ReproducibleVerifiedAtomic(t *testing.T) {
	if _, err := exec.LookPath(build.Target{OS: "linux", Arch: "arm64"}.CC()); err != nil && build.Host().Arch == "amd64" {
		t.Skip("no arm64 cross compiler (scripts/deps.sh installs it)")
	}
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb not installed")
	}
	ctx := context.Background()
	tree := toyTree(t)
	base := t.TempDir()
	o := toyOptions(t, tree, filepath.Join(base, "dist"))
	// A stage a release killed outright (kill -9) left goes.
	if err := os.MkdirAll(filepath.Join(o.Scratch, "stage-killed"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(o.Scratch, "stage-killed", "nomad.zip"), "partial", 0o644)
	r, err := Make(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(o.Scratch, "stage-killed")); err == nil {
		t.Error("Make left the stage a killed release left in the scratch directory")
	}
	want := []string{
		"RELEASE.md", "SHA256SUMS",
		"nomad_1.5.3+fork.1-1_amd64.deb", "nomad_1.5.3+fork.1-1_arm64.deb",
		"nomad_1.5.3+fork.1_linux_amd64.zip", "nomad_1.5.3+fork.1_linux_arm64.zip",
	}
	entries, err := os.ReadDir(filepath.Join(o.Dist, "1.5.3+fork.1"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("release holds %q, want %q", got, want)
	}
	sums, _ := os.ReadFile(filepath.Join(r.Dir, SumsFile))
	if string(sums) != r.Sums || len(Names(r.Sums)) != 5 {
		t.Fatalf("SHA256SUMS:\n%s\nreturned:\n%s", sums, r.Sums)
	}
	for _, tg := range Targets {
		bin := filepath.Join(base, "x-"+tg.Arch)
		if err := CheckZip(filepath.Join(r.Dir, ZipName(r.Version, tg)), bin); err != nil {
			t.Fatal(err)
		}
		if err := CheckELF(bin, tg.Arch); err != nil {
			t.Fatal(err)
		}
		if err := build.Release.Verify(bin, tg); err != nil {
			t.Fatal(err)
		}
	}

	// Another run into another dist: the same sums.
	o2 := toyOptions(t, tree, filepath.Join(base, "dist2"))
	r2, err := Make(ctx, o2)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Sums != r.Sums {
		t.Fatalf("two releases of one commit differ:\n%s\n%s", r.Sums, r2.Sums)
	}
	if _, err := Verify(ctx, o); err != nil {
		t.Fatalf("Verify = %v", err)
	}

	// A release that is not what the commit builds fails Verify.
	tampered := strings.Replace(r.Sums, r.Sums[:8], "00000000", 1)
	writeFile(t, filepath.Join(o2.Dir(), SumsFile), tampered, 0o644)
	var mismatch *MismatchError
	if _, err := Verify(ctx, o2); !errors.As(err, &mismatch) || len(mismatch.Diffs) != 1 {
		t.Fatalf("Verify of a tampered release = %v, want one mismatch", err)
	}

	// Interrupted: the previous release stays, nothing is left staged.
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Make(canceled, o); err == nil {
		t.Fatal("Make with a canceled context = nil")
	}
	if after, _ := os.ReadFile(filepath.Join(o.Dir(), SumsFile)); string(after) != r.Sums {
		t.Fatal("an interrupted Make changed the release")
	}
	if staged, _ := os.ReadDir(o.Scratch); len(staged) != 0 {
		t.Fatalf("an interrupted Make left %d entries in the scratch directory", len(staged))
	}

	// Uncommitted changes are refused.
	writeFile(t, filepath.Join(tree.Dir, "main.go"), "//go:debug httpcookiemaxnum=3000\n//go:debug urlmaxqueryparams=10000\n//go:debug urlstrictcolons=1\n//go:debug rsa1024min=1\n\npackage main\n\nfunc main() {}\n", 0o644)
	if _, err := Make(ctx, o); !errors.Is(err, ErrDirty) {
		t.Fatalf("Make of a dirty tree = %v, want ErrDirty", err)
	}
}

// Without the pinned toolchain and a proxy to get it from, the build says
// how to get it.
func TestCheckToolchain_SaysHowToGetIt(t *testing.T) {
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOPROXY", "off")
	_, err := build.CheckToolchain(context.Background(), t.TempDir())
	var te *build.ToolchainError
	if !errors.As(err, &te) {
		t.Fatalf("CheckToolchain = %v, want a ToolchainError", err)
	}
	for _, want := range []string{build.Toolchain, "https://go.dev/dl/" + build.Toolchain, "first on PATH", "GOPROXY=off"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
