// Package txn changes several files and directories of the repository
// together or not at all: a pin, patch files, CHANGELOG.md, the default
// line's record and the work tree's state record.
//
// A transaction stages every new file in a staging directory, then writes
// a journal (the commit point) listing the renames that switch the staged
// files into place, and performs them, recording its progress in the
// journal after each. Recover, run before anything else reads the
// repository, finishes a committed transaction an interruption stopped
// (each rename is done once: the journal counts the done ones, and the one
// under way is recognized by its source being gone) and discards a
// transaction that stopped before its commit point. Nothing outside the
// staging directory changes before the commit point, and every
// precondition is checked before it.
package txn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// DirName is the staging directory, in the directory that holds the lines
// (patches/), so staged files are renamed within one file system.
const DirName = ".nomadfork-txn"

const journalName = "journal.json"

// Step is one rename of the switch.
type Step struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

// Journal is what a committed transaction still has to do.
type Journal struct {
	// What describes the change, for messages.
	What  string `json:"what"`
	Steps []Step `json:"steps"`
	// Done counts the steps done.
	Done int `json:"done"`
}

// Tx is a transaction being prepared.
type Tx struct {
	dir     string
	journal Journal
	n       int
}

// PendingError is returned by Begin while an earlier transaction is
// unfinished.
type PendingError struct{ Dir string }

func (e *PendingError) Error() string { return e.Render(nil) }

// Render is the error's message with its advice rendered by r.
func (e *PendingError) Render(r hint.Renderer) string {
	return hint.Sprintf("an earlier change of the series is unfinished (%s); run any nomadfork command that takes the lock, such as %s, to finish it", e.Dir, hint.Run("extract")).Render(r)
}

// NotWritableError is returned by Check for a path the transaction would
// replace, remove or write into but cannot.
type NotWritableError struct {
	Path string
	Err  error
}

func (e *NotWritableError) Error() string {
	return fmt.Sprintf("%s is not writable (%v)", e.Path, e.Err)
}

func (e *NotWritableError) Unwrap() error { return e.Err }

// Begin starts a transaction staged in parent/DirName. parent must exist.
func Begin(parent, what string) (*Tx, error) {
	dir := filepath.Join(parent, DirName)
	if _, err := os.Stat(dir); err == nil {
		return nil, &PendingError{Dir: dir}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("staging %s: %w", what, err)
	}
	return &Tx{dir: dir, journal: Journal{What: what}}, nil
}

// Dir is the staging directory.
func (tx *Tx) Dir() string { return tx.dir }

func (tx *Tx) next(prefix string) string {
	tx.n++
	return filepath.Join(tx.dir, prefix+"-"+strconv.Itoa(tx.n))
}

// WriteFile stages data and adds the step that puts it at dst, replacing
// what dst holds.
func (tx *Tx) WriteFile(dst string, data []byte, perm os.FileMode) error {
	staged := tx.next("file")
	if err := writeSynced(staged, data, perm); err != nil {
		return err
	}
	tx.journal.Steps = append(tx.journal.Steps, Step{Src: staged, Dst: dst})
	return nil
}

// StageDir returns a new staging directory for the caller to fill; Put
// then switches it into place.
func (tx *Tx) StageDir() (string, error) {
	d := tx.next("dir")
	if err := os.Mkdir(d, 0o755); err != nil {
		return "", fmt.Errorf("staging: %w", err)
	}
	return d, nil
}

// Put adds the step that moves the staged directory (or file) staged to
// dst, which must not exist then.
func (tx *Tx) Put(staged, dst string) {
	tx.journal.Steps = append(tx.journal.Steps, Step{Src: staged, Dst: dst})
}

// Remove adds the step that moves path out of the way (into the staging
// directory, deleted when the transaction ends).
func (tx *Tx) Remove(path string) {
	tx.journal.Steps = append(tx.journal.Steps, Step{Src: path, Dst: tx.next("old")})
}

// Rename adds the step that renames src to dst.
func (tx *Tx) Rename(src, dst string) {
	tx.journal.Steps = append(tx.journal.Steps, Step{Src: src, Dst: dst})
}

// Check verifies, before the commit point, that every step can be done:
// each source exists and its directory is writable, each destination's
// directory exists and is writable, and each destination that exists is a
// writable file (a directory destination must not exist).
func (tx *Tx) Check() error {
	for _, s := range tx.journal.Steps {
		for _, p := range []string{s.Src, s.Dst} {
			if err := writable(filepath.Dir(p)); err != nil {
				return err
			}
		}
		fi, err := os.Lstat(s.Src)
		if err != nil {
			return fmt.Errorf("staging: %w", err)
		}
		switch {
		case under(s.Src, tx.dir):
		case under(s.Dst, tx.dir):
			// Removed: everything below it is deleted when the
			// transaction ends.
			if err := writableTree(s.Src); err != nil {
				return err
			}
		case fi.IsDir():
			// Moving a directory to another parent rewrites its "..".
			if err := writable(s.Src); err != nil {
				return err
			}
		default:
			if err := writable(s.Src); err != nil {
				return err
			}
		}
		dfi, err := os.Lstat(s.Dst)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return err
		case dfi.IsDir():
			return fmt.Errorf("%s already exists", s.Dst)
		default:
			if err := writable(s.Dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// writableTree checks every file below dir: a file the switch moves away
// is deleted when the transaction ends.
func writableTree(dir string) error {
	return filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return writable(path)
	})
}

func writable(path string) error {
	if err := syscall.Access(path, 2 /* W_OK */); err != nil {
		return &NotWritableError{Path: path, Err: err}
	}
	return nil
}

func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}

// Abort discards a transaction before its commit point.
func (tx *Tx) Abort() {
	_ = os.RemoveAll(tx.dir)
}

// TestHookStep, if set, runs before each step of a switch with the
// step's index; an error stops the switch there, as a crash would.
var TestHookStep func(i int) error

// Commit checks the steps, writes the journal (the commit point) and
// switches. An error before the commit point discards the transaction;
// after it, the switch is finished by Recover.
func (tx *Tx) Commit() error {
	if err := tx.Check(); err != nil {
		tx.Abort()
		return err
	}
	if err := atomicfile.WriteJSON(filepath.Join(tx.dir, journalName), &tx.journal); err != nil {
		tx.Abort()
		return err
	}
	return finish(tx.dir, &tx.journal)
}

// Recover finishes or discards the transaction staged in parent, if any,
// and returns what it finished ("" if nothing). Callers hold the tool's
// lock.
func Recover(parent string) (string, error) {
	dir := filepath.Join(parent, DirName)
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	var j Journal
	ok, err := atomicfile.ReadJSON(filepath.Join(dir, journalName), &j)
	if err != nil {
		return "", err
	}
	if !ok {
		// Stopped before the commit point: nothing outside changed.
		if err := os.RemoveAll(dir); err != nil {
			return "", fmt.Errorf("discarding an unfinished change: %w", err)
		}
		return "", nil
	}
	if err := finish(dir, &j); err != nil {
		return "", fmt.Errorf("finishing an interrupted change (%s): %w", j.What, err)
	}
	return j.What, nil
}

func finish(dir string, j *Journal) error {
	for j.Done < len(j.Steps) {
		if TestHookStep != nil {
			if err := TestHookStep(j.Done); err != nil {
				return err
			}
		}
		s := j.Steps[j.Done]
		if err := move(s.Src, s.Dst); err != nil {
			return err
		}
		j.Done++
		if err := atomicfile.WriteJSON(filepath.Join(dir, journalName), j); err != nil {
			return err
		}
	}
	// Done: the journal goes first, so a crash while deleting the rest
	// leaves only a directory Recover discards.
	if err := os.Remove(filepath.Join(dir, journalName)); err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// move renames src to dst. A step whose source is gone while its
// destination exists was done before an interruption.
func move(src, dst string) error {
	if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Lstat(dst); err == nil {
			return nil
		}
		return fmt.Errorf("switching %s: neither it nor %s exists", dst, src)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	err := os.Rename(src, dst)
	if errors.Is(err, syscall.EXDEV) {
		err = copyFile(src, dst)
	}
	if err != nil {
		return fmt.Errorf("switching %s: %w", dst, err)
	}
	return nil
}

// copyFile moves a file across file systems: the copy is renamed into
// place, then the source removed.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
		return err
	}
	return os.Remove(src)
}

func writeSynced(name string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("staging: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("staging: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("staging: %w", err)
	}
	return f.Close()
}

// CopyDir copies the regular files and directories below src to dst
// (which exists), skipping those skip reports.
func CopyDir(src, dst string, skip func(rel string) bool) error {
	return filepath.Walk(src, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil || rel == "." {
			return err
		}
		if skip != nil && skip(rel) {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !fi.Mode().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return writeSynced(target, data, fi.Mode().Perm())
	})
}
