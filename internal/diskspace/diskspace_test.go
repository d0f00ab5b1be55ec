package diskspace

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A directory and a path under it that does not exist yet are on the
// same file system, whose mount point holds them and is on the same
// device, while its parent (if any) is on another.
func TestFileSystemOf(t *testing.T) {
	dir := t.TempDir()
	mount, free, ok := FileSystemOf(dir)
	if !ok || free == 0 {
		t.Fatalf("FileSystemOf(%s) = %q, %d, %v; want a mount point and free space", dir, mount, free, ok)
	}
	if mount != "/" && !strings.HasPrefix(dir, mount+"/") && dir != mount {
		t.Errorf("FileSystemOf(%s): mount point %s does not hold it", dir, mount)
	}
	devOf := func(p string) uint64 {
		var s syscall.Stat_t
		if err := syscall.Stat(p, &s); err != nil {
			t.Fatal(err)
		}
		return uint64(s.Dev)
	}
	if devOf(mount) != devOf(dir) {
		t.Errorf("mount point %s is on another device than %s", mount, dir)
	}
	if up := filepath.Dir(mount); up != mount && devOf(up) == devOf(mount) {
		t.Errorf("mount point %s: its parent %s is on the same device, so it is not the top", mount, up)
	}
	again, _, ok := FileSystemOf(filepath.Join(dir, "not", "yet"))
	if !ok || again != mount {
		t.Errorf("FileSystemOf of a path not made yet = %q, %v; want %q", again, ok, mount)
	}
}
