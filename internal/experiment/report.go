package experiment

import (
	"context"
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

// Redraw returns what prints the report saved at a path (a verb's -from)
// with write.
func Redraw[R any](write func(io.Writer, *R) error) func(w io.Writer, path string) error {
	return func(w io.Writer, path string) error {
		rep, err := ReadReport[R](path)
		if err != nil {
			return err
		}
		return write(w, rep)
	}
}

// RunTable runs an experiment with run and writes its report's table with
// write to w, after a blank line that ends the run's progress.
func RunTable[R any](ctx context.Context, w io.Writer, run func(context.Context) (*R, error), write func(io.Writer, *R) error) (*R, error) {
	rep, err := run(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w)
	return rep, write(w, rep)
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
