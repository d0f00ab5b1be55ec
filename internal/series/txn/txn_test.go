package txn

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// setup makes a repository-like tree: a line dir with a pin and a patch, a
// changelog, and a transaction that moves the line to a new name with a new
// patch and rewrites the changelog.
func setup(t *testing.T) (root string, tx *Tx) {
	t.Helper()
	root = t.TempDir()
	write(t, filepath.Join(root, "patches", "v1", "pin"), "v1")
	write(t, filepath.Join(root, "patches", "v1", "0001.patch"), "old")
	write(t, filepath.Join(root, "CHANGELOG.md"), "log v1")
	tx, err := Begin(filepath.Join(root, "patches"), "test")
	if err != nil {
		t.Fatal(err)
	}
	d, err := tx.StageDir()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(d, "pin"), "v2")
	write(t, filepath.Join(d, "0001.patch"), "new")
	tx.Remove(filepath.Join(root, "patches", "v1"))
	tx.Put(d, filepath.Join(root, "patches", "v2"))
	if err := tx.WriteFile(filepath.Join(root, "CHANGELOG.md"), []byte("log v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, tx
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

func wantDone(t *testing.T, root string) {
	t.Helper()
	if got := read(t, filepath.Join(root, "patches", "v2", "pin")); got != "v2" {
		t.Errorf("pin = %q", got)
	}
	if got := read(t, filepath.Join(root, "patches", "v2", "0001.patch")); got != "new" {
		t.Errorf("patch = %q", got)
	}
	if got := read(t, filepath.Join(root, "CHANGELOG.md")); got != "log v2" {
		t.Errorf("changelog = %q", got)
	}
	for _, gone := range []string{"patches/v1", "patches/" + DirName} {
		if _, err := os.Stat(filepath.Join(root, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists", gone)
		}
	}
}

func wantUntouched(t *testing.T, root string) {
	t.Helper()
	if got := read(t, filepath.Join(root, "patches", "v1", "pin")); got != "v1" {
		t.Errorf("pin = %q", got)
	}
	if got := read(t, filepath.Join(root, "CHANGELOG.md")); got != "log v1" {
		t.Errorf("changelog = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "patches", "v2")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("patches/v2 exists")
	}
}

func TestCommit(t *testing.T) {
	root, tx := setup(t)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	wantDone(t, root)
}

// A crash before each step, and inside each (the rename done, the journal
// not yet updated), is finished by Recover.
func TestCrashAtEveryStepIsFinished(t *testing.T) {
	crash := errors.New("crash")
	for step := 0; step < 3; step++ {
		for _, inside := range []bool{false, true} {
			root, tx := setup(t)
			TestHookStep = func(i int) error {
				if i != step {
					return nil
				}
				if inside {
					s := tx.journal.Steps[i]
					if err := os.Rename(s.Src, s.Dst); err != nil {
						t.Fatal(err)
					}
				}
				return crash
			}
			err := tx.Commit()
			TestHookStep = nil
			if !errors.Is(err, crash) {
				t.Fatalf("step %d: commit = %v", step, err)
			}
			what, err := Recover(filepath.Join(root, "patches"))
			if err != nil || what != "test" {
				t.Fatalf("step %d inside %v: recover = %q, %v", step, inside, what, err)
			}
			wantDone(t, root)
		}
	}
}

// Before the commit point nothing changes, and Recover discards the
// staging.
func TestUncommittedIsDiscarded(t *testing.T) {
	root, _ := setup(t)
	if what, err := Recover(filepath.Join(root, "patches")); err != nil || what != "" {
		t.Fatalf("recover = %q, %v", what, err)
	}
	wantUntouched(t, root)
	if _, err := os.Stat(filepath.Join(root, "patches", DirName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging left")
	}
}

// A destination directory that exists fails the check before anything
// changes.
func TestCheckRefusesBeforeTheFirstWrite(t *testing.T) {
	root, tx := setup(t)
	write(t, filepath.Join(root, "patches", "v2", "pin"), "other")
	err := tx.Commit()
	if err == nil {
		t.Fatal("commit succeeded")
	}
	if got := read(t, filepath.Join(root, "patches", "v1", "pin")); got != "v1" {
		t.Errorf("pin = %q", got)
	}
	if _, err := Begin(filepath.Join(root, "patches"), "again"); err != nil {
		t.Errorf("staging left after the refusal: %v", err)
	}
}
