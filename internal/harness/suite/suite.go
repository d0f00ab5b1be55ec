// Package suite runs upstream's Go tests of a work tree inside the sandbox
// and compares the failures with the baseline of unpatched upstream.
package suite

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/sandbox"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// Suite is one run of tests of a Go module.
type Suite struct {
	// Dir is the module's directory.
	Dir string
	// BinDir holds the nomad binary of the same tree; it is put first on
	// PATH, as upstream's helper/subproc requires.
	BinDir string
	// Log receives progress and test output.
	Log io.Writer
	// Verbose copies every test's output to Log, not only failures.
	Verbose bool
	// GoFlags are added to GOFLAGS of every go command, the tests' own
	// included (such as -modfile and -tags for the sim module on a line).
	GoFlags []string
}

// Invocation is one `go test` command.
type Invocation struct {
	Packages []string
	// Flags are extra go test flags, such as -race.
	Flags []string
	// Skip is a -skip pattern; empty for none.
	Skip string
	// Run is a -run pattern; empty for all.
	Run string
}

// Download fetches every module the tests of Dir need, which must happen
// before the network is cut.
func (s *Suite) Download(ctx context.Context) error {
	if err := (gocmd.Cmd{Dir: s.Dir, Env: build.GoEnvFlags(s.GoFlags), Log: s.Log}).Run(ctx, "mod", "download"); err != nil {
		return fmt.Errorf("downloading test modules of %s: %w", s.Dir, err)
	}
	return nil
}

// List expands package patterns of the module into import paths.
func (s *Suite) List(ctx context.Context, patterns ...string) ([]string, error) {
	args := append([]string{"list", "-e", "-f", "{{.ImportPath}}"}, patterns...)
	out, err := gocmd.Cmd{Dir: s.Dir, Env: build.GoEnvFlags(s.GoFlags), Log: s.Log}.Output(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("listing packages %s: %w", strings.Join(patterns, " "), err)
	}
	return strings.Fields(string(out)), nil
}

// Run runs inv inside a new sandbox and adds its results to rep.
func (s *Suite) Run(ctx context.Context, inv Invocation, rep *gotest.Report) error {
	bin, err := filepath.Abs(s.BinDir)
	if err != nil {
		return err
	}
	env := build.GoEnvFlags(s.GoFlags, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	argv := gocmd.Cmd{Dir: s.Dir, Env: env}.Argv(ctx, "test", "-json", "-count=1", "-buildvcs=false", "-timeout=20m")
	argv = append(argv, inv.Flags...)
	if inv.Skip != "" {
		argv = append(argv, "-skip", inv.Skip)
	}
	if inv.Run != "" {
		argv = append(argv, "-run", inv.Run)
	}
	argv = append(argv, inv.Packages...)
	cmd, err := sandbox.Command(argv)
	if err != nil {
		return err
	}
	cmd.Dir = s.Dir
	cmd.Env = env
	cmd.Stdout = nil
	cmd.Stderr = s.Log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting go test: %w", err)
	}
	var echo io.Writer
	if s.Verbose {
		echo = s.Log
	} else {
		echo = packageLines{s.Log}
	}
	readErr := rep.Read(stdout, echo)
	waitErr := cmd.Wait()
	if readErr != nil {
		return fmt.Errorf("reading go test output: %w", readErr)
	}
	var exit *exec.ExitError
	if waitErr != nil && !(asExit(waitErr, &exit) && exit.ExitCode() == 1) {
		// Exit code 1 means failing tests, which the report holds.
		return fmt.Errorf("go test %s: %w", strings.Join(inv.Packages, " "), waitErr)
	}
	return nil
}

func asExit(err error, exit **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*exit = e
	}
	return ok
}

// packageLines passes through only per-package result lines and failures.
type packageLines struct{ w io.Writer }

func (p packageLines) Write(b []byte) (int, error) {
	s := string(b)
	if strings.HasPrefix(s, "pass ") || strings.HasPrefix(s, "fail ") || strings.HasPrefix(s, "skip ") || strings.HasPrefix(s, "--- FAIL") || !strings.HasPrefix(s, "    ") {
		return p.w.Write(b)
	}
	return len(b), nil
}

// RunWithBaseline runs the packages with inv's flags, skipping exactly the
// baseline's tests: packages without known failures in one go test, each
// package with known failures in its own, so that a name is skipped only in
// the package it fails in. A package whose tests do not build on upstream
// is left out and reported as skipped.
func (s *Suite) RunWithBaseline(ctx context.Context, pkgs []string, flags []string, base *gotest.Baseline, rep *gotest.Report) error {
	known := base.ByPackage()
	var plain []string
	var special []string
	for _, p := range pkgs {
		if k, ok := base.Unbuildable(p); ok {
			// Upstream's tests of p do not build: nothing to compare with.
			rep.Tests[[2]string{p, k.Test}] = &gotest.Result{Package: p, Test: k.Test, Action: "skip", Output: []string{k.Reason}}
			continue
		}
		if len(known[p]) > 0 {
			special = append(special, p)
		} else {
			plain = append(plain, p)
		}
	}
	if len(plain) > 0 {
		if err := s.Run(ctx, Invocation{Packages: plain, Flags: flags}, rep); err != nil {
			return err
		}
	}
	sort.Strings(special)
	for _, p := range special {
		if err := s.Run(ctx, Invocation{Packages: []string{p}, Flags: flags, Skip: gotest.SkipPattern(known[p])}, rep); err != nil {
			return err
		}
	}
	return nil
}

// Outcomes runs each test on its own and returns its action (pass, fail,
// skip), or "" for a test the module does not have.
func (s *Suite) Outcomes(ctx context.Context, tests []gotest.Result, flags []string) (map[[2]string]string, error) {
	out := map[[2]string]string{}
	for _, t := range tests {
		rep := gotest.NewReport()
		inv := Invocation{Packages: []string{t.Package}, Flags: flags, Run: "^" + regexp.QuoteMeta(t.Test) + "$"}
		if err := s.Run(ctx, inv, rep); err != nil {
			return nil, err
		}
		key := [2]string{t.Package, t.Test}
		if r, ok := rep.Tests[key]; ok {
			out[key] = r.Action
		} else {
			out[key] = ""
		}
	}
	return out, nil
}
