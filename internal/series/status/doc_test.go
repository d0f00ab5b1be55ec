package status

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/rebase"
)

func TestMarkdown(t *testing.T) {
	patches := []series.Patch{
		{Name: "0001-csi-fix.patch", Number: 1, Meta: &metadata.Patch{Subject: "csi: fix | the restore"}},
		{Name: "0002-bad.patch", Number: 2, MetaErr: errors.New("no Subject")},
	}
	lines := []LineStatus{
		{Line: "v1.5.3", Default: true, Patches: patches, Columns: []Column{
			{Version: "v1.5.5", Outcomes: []rebase.Outcome{
				{Patch: patches[0].Name, Kind: rebase.Conflict, Files: []string{"a.go", "b/c.go"}},
				{Patch: patches[1].Name, Kind: rebase.Clean, Detail: "(tried without 0001-csi-fix.patch)"},
			}},
			{Version: "v1.6.1", Notes: []string{"the pinned api module is used for api/"}, Outcomes: []rebase.Outcome{
				{Patch: patches[0].Name, Kind: rebase.Upstream},
				{Patch: patches[1].Name, Kind: rebase.ThreeWay},
			}},
		}},
		{Line: "v1.6.1", Patches: patches},
	}
	got := Markdown(lines, "on 2026-11-30")
	want := []string{
		"Generated on 2026-11-30.",
		"**Line v1.5.3** (default) against v1.5.5, v1.6.1:\n\n" +
			"| patch | v1.5.5 | v1.6.1 |\n" +
			"|---|---|---|\n" +
			"| 0001 csi: fix \\| the restore | conflict (`a.go`, `b/c.go`) | already upstream |\n" +
			"| `0002-bad.patch` | applies \\* | 3-way |\n" +
			"\nv1.6.1: the pinned api module is used for api/\n",
		"**Line v1.6.1**: no newer version to try (targets.json names none).\n",
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("Markdown lacks\n%s\ngot:\n%s", w, got)
		}
	}
}

func TestReplaceGenerated(t *testing.T) {
	doc := "# Title\n\nbefore\n\n" + BeginMarker + "\nold table\n" + EndMarker + "\n\nafter\n"
	got, err := ReplaceGenerated(doc, "\nnew table\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\nbefore\n\n" + BeginMarker + "\nnew table\n" + EndMarker + "\n\nafter\n"
	if got != want {
		t.Errorf("ReplaceGenerated =\n%s\nwant\n%s", got, want)
	}
	// Idempotent: the same block again changes nothing.
	if again, err := ReplaceGenerated(got, "new table"); err != nil || again != got {
		t.Errorf("second replace = %q, %v", again, err)
	}
	for name, bad := range map[string]string{
		"no markers":     "# Title\n",
		"only the begin": BeginMarker + "\n",
		"twice":          BeginMarker + EndMarker + BeginMarker + EndMarker,
		"reversed":       EndMarker + "\n" + BeginMarker + "\n",
	} {
		if _, err := ReplaceGenerated(bad, "x"); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// WriteDoc rewrites only the generated block and leaves a document
// without markers as it was.
func TestWriteDoc(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "status.md")
	doc := "# Status\n\nbefore\n" + BeginMarker + "\nold\n" + EndMarker + "\nafter\n"
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDoc(file, "new"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Status\n\nbefore\n" + BeginMarker + "\nnew\n" + EndMarker + "\nafter\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	plain := filepath.Join(dir, "plain.md")
	if err := os.WriteFile(plain, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = WriteDoc(plain, "new")
	if err == nil || !strings.Contains(err.Error(), plain+": the markers must each appear once") {
		t.Errorf("WriteDoc without markers: %v, want an error naming %s", err, plain)
	}
	if got, _ := os.ReadFile(plain); string(got) != "no markers\n" {
		t.Errorf("WriteDoc without markers changed the file: %q", got)
	}
	if err := WriteDoc(filepath.Join(dir, "missing.md"), "new"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteDoc of a missing file: %v, want fs.ErrNotExist", err)
	}
}
