// Package progress reports long-running steps: what starts, that it is
// still running, and how long it took.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

var current struct {
	sync.Mutex
	steps []string
	last  string
}

// Begin records what as the step under way, for Current, until the
// returned function is called.
func Begin(what string) (end func()) {
	current.Lock()
	current.steps = append(current.steps, what)
	current.last = what
	n := len(current.steps)
	current.Unlock()
	if h := TestHookBegin; h != nil {
		h(what)
	}
	return func() {
		current.Lock()
		defer current.Unlock()
		if len(current.steps) >= n {
			current.steps = current.steps[:n-1]
		}
	}
}

// TestHookBegin, if set, is called at the start of every step, once it is
// Current: the
// interruption tests stop a command at each step boundary with it.
var TestHookBegin func(what string)

// Reset forgets every step, for a new command in the same process.
func Reset() {
	current.Lock()
	defer current.Unlock()
	current.steps, current.last = nil, ""
}

// Current returns the innermost step under way, or else the step begun
// last (the one an interruption stopped), or "" if there was none.
func Current() string {
	current.Lock()
	defer current.Unlock()
	if len(current.steps) == 0 {
		return current.last
	}
	return current.steps[len(current.steps)-1]
}

// Interval is how often Step reports that a step is still running.
var Interval = 30 * time.Second

// Step prints what, runs fn, prints a line every Interval while fn runs, and
// prints how long fn took.
func Step(w io.Writer, what string, fn func() error) error {
	start := time.Now()
	defer Begin(what)()
	fmt.Fprintf(w, "==> %s\n", what)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(w, "    … %s (%s so far)\n", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	err := fn()
	close(done)
	<-stopped
	status := "done"
	if err != nil {
		status = "failed"
	}
	fmt.Fprintf(w, "    %s: %s in %s\n", what, status, time.Since(start).Round(time.Second))
	return err
}
