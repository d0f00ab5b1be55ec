package gotest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// WholePackage is the test name of a baseline entry for a package whose
// tests do not build on unpatched upstream: runs leave the package out.
const WholePackage = "*"

// Known is one test that fails on unpatched upstream in the sandbox, or a
// package whose tests do not build there (Test is WholePackage).
type Known struct {
	Package string
	Test    string
	Reason  string
}

// Baseline is the list of tests that fail on unpatched upstream in the
// sandbox, for environmental reasons.
type Baseline struct {
	// Header is a comment describing how the list was made.
	Header []string
	// Packages lists the packages the run covered, when it was not a
	// whole tree (the race baseline covers the packages the series
	// touches). It is stored as a "# packages:" header line.
	Packages []string
	Tests    []Known
}

const packagesHeader = "packages:"

// Missing returns the packages of pkgs the baseline did not run.
func (b *Baseline) Missing(pkgs []string) []string {
	have := map[string]bool{}
	for _, p := range b.Packages {
		have[p] = true
	}
	var missing []string
	for _, p := range pkgs {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	return missing
}

// ReadBaseline reads a baseline file: comment lines starting with #, then
// one package<TAB>test<TAB>reason line per test.
func ReadBaseline(file string) (*Baseline, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, hint.Errorf("reading baseline: %w (run %s to make it)", err, hint.Run("baseline"))
	}
	b := &Baseline{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			h := strings.TrimSpace(strings.TrimPrefix(line, "#"))
			if rest, ok := strings.CutPrefix(h, packagesHeader); ok {
				b.Packages = strings.Fields(rest)
				continue
			}
			b.Header = append(b.Header, h)
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("%s:%d: want package<TAB>test<TAB>reason", file, n)
		}
		b.Tests = append(b.Tests, Known{f[0], f[1], f[2]})
	}
	return b, sc.Err()
}

// Write writes the baseline in the format ReadBaseline reads.
func (b *Baseline) Write(file string) error {
	var buf bytes.Buffer
	for _, h := range b.Header {
		fmt.Fprintf(&buf, "# %s\n", h)
	}
	if len(b.Packages) > 0 {
		pkgs := append([]string(nil), b.Packages...)
		sort.Strings(pkgs)
		fmt.Fprintf(&buf, "# %s %s\n", packagesHeader, strings.Join(pkgs, " "))
	}
	tests := append([]Known(nil), b.Tests...)
	sort.Slice(tests, func(i, j int) bool {
		if tests[i].Package != tests[j].Package {
			return tests[i].Package < tests[j].Package
		}
		return tests[i].Test < tests[j].Test
	})
	for _, k := range tests {
		fmt.Fprintf(&buf, "%s\t%s\t%s\n", k.Package, k.Test, k.Reason)
	}
	return atomicfile.WriteFile(file, buf.Bytes(), 0o644)
}

// ByPackage groups the baseline's tests by package.
func (b *Baseline) ByPackage() map[string][]Known {
	m := map[string][]Known{}
	for _, k := range b.Tests {
		m[k.Package] = append(m[k.Package], k)
	}
	return m
}

// Unbuildable returns the entry of a package whose tests do not build on
// unpatched upstream, if the baseline has one.
func (b *Baseline) Unbuildable(pkg string) (Known, bool) {
	return b.Lookup(pkg, WholePackage)
}

// BuildFailure is the entry for a package whose tests did not build in r.
func BuildFailure(r Result) Known {
	reason := "see the go command's output"
	for i := len(r.Output) - 1; i >= 0; i-- {
		s := strings.TrimSpace(r.Output[i])
		if s != "" && !strings.HasPrefix(s, "FAIL") && !strings.HasPrefix(s, "#") {
			reason = clip(s)
			break
		}
	}
	return Known{Package: r.Package, Test: WholePackage, Reason: "tests do not build on unpatched upstream: " + reason}
}

// Lookup returns the entry for a test, if any.
func (b *Baseline) Lookup(pkg, test string) (Known, bool) {
	for _, k := range b.Tests {
		if k.Package == pkg && k.Test == test {
			return k, true
		}
	}
	return Known{}, false
}

// SkipPattern returns a `go test -skip` pattern that matches exactly the
// given top-level tests.
func SkipPattern(tests []Known) string {
	names := make([]string, len(tests))
	for i, k := range tests {
		names[i] = regexp.QuoteMeta(k.Test)
	}
	sort.Strings(names)
	return "^(" + strings.Join(names, "|") + ")$"
}

// raceRE matches the race detector's report in a test's output.
var raceRE = regexp.MustCompile(`WARNING: DATA RACE|race detected during execution of test`)

// Raced reports whether r failed with a data race report. A race shows in
// some runs only, and the race detector reports each race once per
// process, so one run that passes says little.
func Raced(r Result) bool {
	for _, line := range r.Output {
		if raceRE.MatchString(line) {
			return true
		}
	}
	return false
}

// reasons map output patterns of environmental failures to explanations.
var reasons = []struct {
	re     *regexp.Regexp
	reason string
}{
	{raceRE, "data race in upstream code (fails under -race only)"},
	{regexp.MustCompile(`certificate has expired|x509: certificate`), "TLS test fixture expired (upstream's certificates expired in 2023)"},
	{regexp.MustCompile(`(?i)"?consul"?: executable file not found|consul.*not found in \$PATH|failed to start consul`), "needs a consul binary, not installed"},
	{regexp.MustCompile(`(?i)"?vault"?: executable file not found|vault.*not found|failed to start vault`), "needs a vault binary, not installed"},
	{regexp.MustCompile(`(?i)envoy`), "needs envoy, not installed"},
	{regexp.MustCompile(`raw\.githubusercontent\.com|dial tcp [^ ]*: connect: network is unreachable|no such host`), "needs the internet; the sandbox has no network"},
	{regexp.MustCompile(`failed to find plugin|\bCNI\b|/opt/cni`), "needs CNI plugins, not installed"},
	{regexp.MustCompile(`(?i)landlock`), "landlock is not available in this kernel/sandbox"},
	{regexp.MustCompile(`(?i)bridge`), "bridge networking is not available in the sandbox"},
	{regexp.MustCompile(`(?i)cgroup`), "cgroups are hidden in the sandbox"},
	{regexp.MustCompile(`(?i)\bconsul\b`), "needs a consul agent, not available"},
	{regexp.MustCompile(`(?i)\bvault\b`), "needs a vault server, not available"},
}

// Reason explains a failure from its output: a known environmental cause,
// or else the first line that looks like an error.
func Reason(r Result) string {
	text := strings.Join(r.Output, "\n")
	for _, k := range reasons {
		if k.re.MatchString(text) {
			return k.reason
		}
	}
	// Prefer the assertion's message over log lines.
	for _, prefix := range []string{"Error:", "panic:", "Messages:"} {
		for _, line := range r.Output {
			if s := strings.TrimSpace(line); strings.HasPrefix(s, prefix) {
				return clip(s)
			}
		}
	}
	for _, line := range r.Output {
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "===") || s == "" || logLineRE.MatchString(s) {
			continue
		}
		if strings.Contains(strings.ToLower(s), "error") || strings.Contains(s, "expected") {
			return clip(s)
		}
	}
	return "failed without an error message (see the baseline run's output)"
}

// logLineRE matches hclog lines, which rarely explain a failure.
var logLineRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z? \[`)

func clip(s string) string {
	s = strings.ReplaceAll(s, "\t", " ")
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}
