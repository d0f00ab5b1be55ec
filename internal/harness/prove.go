package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/verdict"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// ProveUpstream gathers the evidence that upstream at base carries what
// patch p does: p's own tests (the Test funcs its _test.go hunks add or
// change) are applied without its production changes to base and run in
// the sandbox; every one of them must pass. The client baseline's failures
// of unpatched upstream are skipped when the baseline exists. It returns
// the evidence in one line, or an error saying why it is not proven.
func ProveUpstream(ctx context.Context, o Options, base string, p series.Patch) (string, error) {
	own := p.OwnTests()
	tests := p.TestsOnly()
	if len(own) == 0 || tests == nil {
		return "", fmt.Errorf("%s adds or changes no test, so nothing can prove that upstream carries it; resolve the conflict instead", p.Name)
	}
	known, err := gotest.ReadBaseline(o.Plain)
	if errors.Is(err, os.ErrNotExist) {
		known, err = &gotest.Baseline{}, nil
	}
	if err != nil {
		return "", err
	}
	wt, cleanup, err := o.Tree.Repo.Scratch(ctx, filepath.Join(o.Scratch, "nomad"), base)
	if err != nil {
		return "", err
	}
	defer cleanup()
	file := filepath.Join(o.Scratch, "tests-only.patch")
	if err := os.WriteFile(file, tests, 0o644); err != nil {
		return "", err
	}
	if out, err := wt.Run(ctx, "apply", "--3way", file); err != nil {
		return "", fmt.Errorf("%s: its tests do not apply to upstream without it: %w\n%s", p.Name, err, out)
	}
	// --3way stages what it merges; the suite reads the files.
	s, err := Prepare(ctx, wt.Dir, filepath.Join(o.Scratch, "bin"), "drop-verify", o.Verbose, o.Log)
	if err != nil {
		return "", err
	}
	rep := gotest.NewReport()
	var names []string
	for _, ot := range own {
		if err := runOwn(ctx, o, s, p.Name, "upstream without it", ot, known, rep); err != nil {
			return "", err
		}
		for _, t := range ot.Tests {
			names = append(names, "./"+ot.Dir+" "+t)
		}
	}
	v, err := verdict.Judge(ctx, rep, verdict.Options{Fork: s.Outcomes, MaxRetries: verdict.DefaultMaxRetries})
	if err != nil {
		return "", err
	}
	v.Print(o.Log, fmt.Sprintf("%s: its own tests on upstream without its production changes", p.Name), len(rep.Packages))
	if n := v.Failures() + len(v.Flaky) + len(v.Upstream); n > 0 {
		return "", fmt.Errorf("%s: %d of its own tests fail (or are flaky) on upstream without it: upstream does not carry all of it; resolve the conflict and keep what upstream lacks", p.Name, n)
	}
	if len(v.Passed) != len(names) {
		return "", fmt.Errorf("%s: %d of its %d own tests passed on upstream without it (the others were skipped or did not run): not proven", p.Name, len(v.Passed), len(names))
	}
	return fmt.Sprintf("its own tests pass on upstream without its production changes (%s)", strings.Join(names, ", ")), nil
}
