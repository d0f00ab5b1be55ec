package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a repository with lib.go and a patch that changes it.
func repo(t *testing.T) (*Repo, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &Repo{Dir: t.TempDir(), Env: []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z"}}
	ctx := context.Background()
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(r.Dir, "lib.go"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(args ...string) string {
		out, err := r.Run(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	must("init", "-q", "-b", "main")
	write("package lib\n\nconst A = 1\n\nconst B = 2\n")
	must("add", ".")
	must("commit", "-q", "-m", "base")
	write("package lib\n\nconst A = 10\n\nconst B = 2\n")
	must("commit", "-q", "-a", "-m", "change A")
	patch := filepath.Join(t.TempDir(), "0001.patch")
	if err := os.WriteFile(patch, []byte(must("format-patch", "--stdout", "--full-index", "-1")), 0o644); err != nil {
		t.Fatal(err)
	}
	must("reset", "-q", "--hard", "HEAD~1")
	return r, patch
}

func TestAmConflictAndContinueKeepDates(t *testing.T) {
	r, patch := repo(t)
	ctx := context.Background()
	os.WriteFile(filepath.Join(r.Dir, "lib.go"), []byte("package lib\n\nconst A = 2\n\nconst B = 2\n"), 0o644)
	r.Run(ctx, "commit", "-q", "-a", "-m", "upstream changes A")
	err := r.Am(ctx, patch, true)
	var am *AmError
	if !errors.As(err, &am) || !am.Unmerged || strings.Join(am.Files, ",") != "lib.go" {
		t.Fatalf("Am = %#v, want a conflict in lib.go", err)
	}
	if in, _ := r.AmInProgress(ctx); !in {
		t.Fatal("no am session after the conflict")
	}
	os.WriteFile(filepath.Join(r.Dir, "lib.go"), []byte("package lib\n\nconst A = 20\n\nconst B = 2\n"), 0o644)
	r.Run(ctx, "add", "lib.go")
	if err := r.AmContinue(ctx); err != nil {
		t.Fatal(err)
	}
	if dates, _ := r.Line(ctx, "log", "-1", "--format=%ad|%cd"); strings.Split(dates, "|")[0] != strings.Split(dates, "|")[1] {
		t.Errorf("dates after continue: %s", dates)
	}
}

func TestAmDeletedFileIsAConflict(t *testing.T) {
	r, patch := repo(t)
	ctx := context.Background()
	r.Run(ctx, "rm", "-q", "lib.go")
	r.Run(ctx, "commit", "-q", "-m", "upstream deletes lib.go")
	err := r.Am(ctx, patch, true)
	var am *AmError
	if !errors.As(err, &am) || !am.Unmerged || strings.Join(am.Files, ",") != "lib.go" {
		t.Fatalf("Am = %#v, want a modify/delete conflict in lib.go", err)
	}
	if err := r.AmAbort(ctx); err != nil {
		t.Fatal(err)
	}
	if in, _ := r.AmInProgress(ctx); in {
		t.Error("am session left after AmAbort")
	}
}

func TestAmCorruptPatch(t *testing.T) {
	r, patch := repo(t)
	ctx := context.Background()
	data, _ := os.ReadFile(patch)
	os.WriteFile(patch, []byte(strings.Replace(string(data), "+const A = 10\n", "", 1)), 0o644)
	err := r.Am(ctx, patch, true)
	var am *AmError
	if !errors.As(err, &am) || am.Unmerged || !strings.Contains(am.Error(), "corrupt patch") {
		t.Fatalf("Am = %v, want git's corrupt patch message and no conflict", err)
	}
}

func TestScratch(t *testing.T) {
	r, _ := repo(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "scratch")
	os.MkdirAll(filepath.Join(dir, "junk"), 0o755)
	wt, cleanup, err := r.Scratch(ctx, dir, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wt.Dir, "lib.go")); err != nil {
		t.Errorf("scratch tree lacks lib.go: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "junk")); err == nil {
		t.Error("scratch tree kept what dir held")
	}
	cleanup()
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("scratch dir left: %v", err)
	}
	if out, _ := r.Run(ctx, "worktree", "list"); strings.Contains(out, "scratch") {
		t.Errorf("worktree still registered:\n%s", out)
	}
}

// A corrupt patch is located by its line in the patch file: git counts
// from the start of the diff part of the mail.
func TestAmCorruptPatchNamesFileLine(t *testing.T) {
	r, patch := repo(t)
	data, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// Cut the hunk short: the file ends in the middle of it.
	cut := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "@@ ") {
			cut = i + 2
		}
	}
	if err := os.WriteFile(patch, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	err = r.Am(context.Background(), patch, false)
	var am *AmError
	if !errors.As(err, &am) {
		t.Fatalf("Am = %v, want an AmError", err)
	}
	want := fmt.Sprintf("corrupt patch at line %d of the patch file", cut+1)
	if !strings.Contains(am.Error(), want) {
		t.Errorf("%q lacks %q", am.Error(), want)
	}
	r.AmAbort(context.Background())
}
