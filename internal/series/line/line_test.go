package line

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func pinFile(t *testing.T, root, dir, version string) {
	t.Helper()
	p := &pin.Pin{Module: pin.Module{Path: "example.com/up", Version: version, Sum: "h1:x="}}
	if err := os.MkdirAll(filepath.Join(root, PatchesDir, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Save(filepath.Join(root, PatchesDir, dir, pin.DefaultFile)); err != nil {
		t.Fatal(err)
	}
}

func TestLayout(t *testing.T) {
	root := t.TempDir()
	l := Layout{Root: root}
	if l.IsRepo() {
		t.Fatal("an empty directory is a repository")
	}
	write(t, filepath.Join(root, PatchesDir, DefaultFile), "v1.5.3\n")
	for _, v := range []string{"v1.10.0", "v1.5.3", "v1.6.1"} {
		pinFile(t, root, v, v)
	}
	// Not lines: no pin, not a version.
	write(t, filepath.Join(root, PatchesDir, "v2.0.0", "0001-x.patch"), "")
	write(t, filepath.Join(root, PatchesDir, "notes", pin.DefaultFile), "{}")

	names, err := l.Names()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, " "); got != "v1.5.3 v1.6.1 v1.10.0" {
		t.Errorf("Names = %s, want semver order", got)
	}
	def, err := l.Get("")
	if err != nil {
		t.Fatal(err)
	}
	if def.Name != "v1.5.3" || !def.Default || def.WorkTree != filepath.Join(root, "nomad") {
		t.Errorf("default line = %+v", def)
	}
	other, err := l.Get("v1.6.1")
	if err != nil {
		t.Fatal(err)
	}
	if other.Default || other.WorkTree != filepath.Join(root, WorkTreesDir, "v1.6.1", "nomad") ||
		other.Baselines != filepath.Join(root, PatchesDir, "v1.6.1", BaselineDir) {
		t.Errorf("line v1.6.1 = %+v", other)
	}
	_, err = l.Get("v2.0.0")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "the lines are v1.5.3, v1.6.1, v1.10.0") {
		t.Errorf("unknown line: %v", err)
	}
	// A line's pin must name the line.
	pinFile(t, root, "v1.6.0", "v1.6.1")
	if _, err := l.Get("v1.6.0"); err == nil || !strings.Contains(err.Error(), "pins v1.6.1, but its line is v1.6.0") {
		t.Errorf("mismatched pin: %v", err)
	}
	write(t, filepath.Join(root, PatchesDir, DefaultFile), "latest\n")
	if _, err := l.Get(""); err == nil || !strings.Contains(err.Error(), `"latest" is not a version`) {
		t.Errorf("bad default record: %v", err)
	}
}

func TestMoveDefaultLine(t *testing.T) {
	root := t.TempDir()
	l := Layout{Root: root}
	write(t, filepath.Join(root, PatchesDir, DefaultFile), "v1.5.3\n")
	pinFile(t, root, "v1.5.3", "v1.5.3")
	write(t, filepath.Join(root, PatchesDir, "v1.5.3", BaselineDir, "client-v1.5.3.tsv"), "")
	write(t, filepath.Join(root, PatchesDir, "v1.5.3", BaselineDir, "notes.md"), "")
	moved, err := l.Move("v1.5.3", "v1.5.6")
	if err != nil {
		t.Fatal(err)
	}
	if !moved.Default || moved.WorkTree != filepath.Join(root, "nomad") {
		t.Errorf("moved default line = %+v", moved)
	}
	if _, err := os.Stat(filepath.Join(moved.Baselines, "client-v1.5.3.tsv")); !os.IsNotExist(err) {
		t.Errorf("the old version's baseline moved along: %v", err)
	}
	if _, err := os.Stat(filepath.Join(moved.Baselines, "notes.md")); err != nil {
		t.Errorf("other files of the line did not move: %v", err)
	}
	if _, err := l.Move("v1.5.6", "v1.5.6"); err == nil {
		t.Errorf("moving a line onto an existing one succeeded")
	}
}

// The default line's missing pin is named as such, not as an unknown line.
func TestDefaultLineWithoutPin(t *testing.T) {
	root := t.TempDir()
	pinFile(t, root, "v1.5.3", "v1.5.3")
	write(t, filepath.Join(root, PatchesDir, DefaultFile), "v1.5.3\n")
	l := Layout{Root: root}
	if err := os.Remove(filepath.Join(root, PatchesDir, "v1.5.3", "upstream.json")); err != nil {
		t.Fatal(err)
	}
	_, err := l.Get("")
	if !errors.Is(err, ErrNoPin) || !strings.Contains(err.Error(), "git checkout -- patches/v1.5.3/upstream.json") {
		t.Errorf("missing default pin: %v", err)
	}
}
