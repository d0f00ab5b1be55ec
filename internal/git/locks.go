package git

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// removeLocks removes the lock files a git process killed mid-step can
// leave in the git directory — the index lock, HEAD's and the other
// top-level locks (HEAD.lock, ORIG_HEAD.lock, packed-refs.lock …) and the
// locks of refs under refs/ — that were made at or after since (the zero time: all of
// them). It returns whether it removed any. Callers hold the tool's lock,
// so no git command of the tool runs in the repository; a lock older than
// since is someone else's and stays.
func removeLocks(gitDir string, since time.Time) bool {
	removed := false
	remove := func(path string) {
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(since) {
			return
		}
		if os.Remove(path) == nil {
			removed = true
		}
	}
	if entries, err := os.ReadDir(gitDir); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".lock") {
				remove(filepath.Join(gitDir, e.Name()))
			}
		}
	}
	_ = filepath.WalkDir(filepath.Join(gitDir, "refs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			remove(path)
		}
		return nil
	})
	return removed
}
