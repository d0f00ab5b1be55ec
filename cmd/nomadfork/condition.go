package main

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

// cond is a system condition behind an error, which a message names first
// when it would bury it.
type cond int

const (
	// diskFull: no space left on device.
	diskFull cond = iota + 1
	// readOnly: a read-only file system, nothing more to say.
	readOnly
	// notWritable: a file or directory without write permission, or one a
	// transaction found it cannot write before its first write.
	notWritable
)

// A condition is the system condition an error is.
type condition struct {
	Cond cond
	// Path is the file: for DiskFull, an absolute path written when the
	// error names one.
	Path string
	// Checked: found before the transaction's first write; nothing was
	// changed.
	Checked bool
	// ReadOnlyFS: the file system is read-only.
	ReadOnlyFS bool
}

// conditionOf returns the condition err is, if any, the first that
// applies in the order of the cond constants' checks: a full disk, a
// transaction's not writable path, a read-only file system, a permission.
func conditionOf(err error) (condition, bool) {
	var pe *os.PathError
	var nw *txn.NotWritableError
	switch {
	case errors.Is(err, syscall.ENOSPC):
		c := condition{Cond: diskFull}
		if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
			c.Path = pe.Path
		}
		return c, true
	case errors.As(err, &nw):
		return condition{Cond: notWritable, Path: nw.Path, Checked: true, ReadOnlyFS: errors.Is(err, syscall.EROFS)}, true
	case errors.Is(err, syscall.EROFS):
		return condition{Cond: readOnly, ReadOnlyFS: true}, true
	case errors.As(err, &pe) && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)):
		return condition{Cond: notWritable, Path: pe.Path}, true
	}
	return condition{}, false
}
