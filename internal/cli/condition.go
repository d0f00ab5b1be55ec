package cli

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// Cond is a system condition behind an error, which a message names first
// when it would bury it.
type Cond int

const (
	// DiskFull: no space left on device.
	DiskFull Cond = iota + 1
	// ReadOnly: a read-only file system, nothing more to say.
	ReadOnly
	// NotWritable: a file or directory without write permission, or one a
	// transaction found it cannot write before its first write.
	NotWritable
)

// A Condition is the system condition an error is.
type Condition struct {
	Cond Cond
	// Path is the file: for DiskFull, an absolute path written when the
	// error names one.
	Path string
	// Checked: found before the transaction's first write; nothing was
	// changed.
	Checked bool
	// ReadOnlyFS: the file system is read-only.
	ReadOnlyFS bool
}

// ConditionOf returns the condition err is, if any, the first that
// applies in the order of the Cond constants' checks: a full disk, a
// transaction's not writable path, a read-only file system, a permission.
func ConditionOf(err error) (Condition, bool) {
	var pe *os.PathError
	var nw *txn.NotWritableError
	switch {
	case errors.Is(err, syscall.ENOSPC):
		c := Condition{Cond: DiskFull}
		if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
			c.Path = pe.Path
		}
		return c, true
	case errors.As(err, &nw):
		return Condition{Cond: NotWritable, Path: nw.Path, Checked: true, ReadOnlyFS: errors.Is(err, syscall.EROFS)}, true
	case errors.Is(err, syscall.EROFS):
		return Condition{Cond: ReadOnly, ReadOnlyFS: true}, true
	case errors.As(err, &pe) && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)):
		return Condition{Cond: NotWritable, Path: pe.Path}, true
	}
	return Condition{}, false
}
