package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/txn"
)

func TestConditionOf(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want condition
		ok   bool
	}{
		{&os.PathError{Op: "write", Path: "/r/nomad/f", Err: syscall.ENOSPC}, condition{Cond: diskFull, Path: "/r/nomad/f"}, true},
		{&os.PathError{Op: "write", Path: "rel", Err: syscall.ENOSPC}, condition{Cond: diskFull}, true},
		{fmt.Errorf("x: %w", &txn.NotWritableError{Path: "/r/p", Err: syscall.EACCES}), condition{Cond: notWritable, Path: "/r/p", Checked: true}, true},
		{&txn.NotWritableError{Path: "/r/p", Err: syscall.EROFS}, condition{Cond: notWritable, Path: "/r/p", Checked: true, ReadOnlyFS: true}, true},
		{&os.PathError{Op: "open", Path: "/r/p", Err: syscall.EROFS}, condition{Cond: readOnly, ReadOnlyFS: true}, true},
		{&os.PathError{Op: "open", Path: "/r/p", Err: syscall.EPERM}, condition{Cond: notWritable, Path: "/r/p"}, true},
		{syscall.EACCES, condition{}, false}, // no path to name
		{errors.New("boom"), condition{}, false},
	} {
		got, ok := conditionOf(tc.err)
		if got != tc.want || ok != tc.ok {
			t.Errorf("conditionOf(%v) = %+v, %v; want %+v, %v", tc.err, got, ok, tc.want, tc.ok)
		}
	}
}
