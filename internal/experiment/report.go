package experiment

import (
	"fmt"
	"io"
	"os"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
)

// ReadReport reads a saved report of type R.
func ReadReport[R any](path string) (*R, error) {
	var rep R
	ok, err := atomicfile.ReadJSON(path, &rep)
	if err == nil && !ok {
		err = fmt.Errorf("%s: %w", path, os.ErrNotExist)
	}
	if err != nil {
		return nil, err
	}
	return &rep, nil
}

// Redraw prints the report saved at path (a verb's -from) with write.
func Redraw[R any](w io.Writer, path string, write func(io.Writer, *R) error) error {
	rep, err := ReadReport[R](path)
	if err != nil {
		return err
	}
	return write(w, rep)
}

// NotOK counts the results that are not OK.
func NotOK[T any, P interface {
	*T
	OK() bool
}](results []T) int {
	n := 0
	for i := range results {
		if !P(&results[i]).OK() {
			n++
		}
	}
	return n
}
