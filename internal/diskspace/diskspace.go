// Package diskspace says which file system a directory is on and how much
// space is free there, for the advice after a full disk.
package diskspace

import (
	"os"
	"path/filepath"
	"syscall"
)

// FileSystemOf returns the mount point of the file system dir (or its
// nearest existing parent) is on, and how many bytes are free there; ok
// is false when it cannot tell.
func FileSystemOf(dir string) (mount string, free uint64, ok bool) {
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", 0, false
		}
		dir = up
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return "", 0, false
	}
	dev := func(path string) (uint64, bool) {
		var s syscall.Stat_t
		if syscall.Stat(path, &s) != nil {
			return 0, false
		}
		return uint64(s.Dev), true
	}
	d, ok := dev(dir)
	if !ok {
		return "", 0, false
	}
	for mount = dir; ; {
		up := filepath.Dir(mount)
		if u, ok := dev(up); up == mount || !ok || u != d {
			break
		}
		mount = up
	}
	return mount, st.Bavail * uint64(st.Bsize), true
}
