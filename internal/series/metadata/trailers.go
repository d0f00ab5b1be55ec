package metadata

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// The trailers that describe a patch's place in the series and its
// relation to upstream's tests, besides Upstream-Status, Origin, Bug and
// Release-Note:
//
//	Depends-On: NNNN                      (repeatable) an earlier patch of the series this one needs
//	Ref: <https url>                      (repeatable) a related issue or PR the patch does not fix
//	Changes-Test: <pkg dir> <TestName>    (repeatable) an upstream test whose behaviour the patch
//	                                      deliberately changes; the body says why
//	Advisory: <ID>                        (repeatable) an advisory the patch fixes, one ID each
//	                                      (CVE-…, GH-…, GO-…, GHSA-…), as docs/security/record.tsv names it
const (
	DependsOnKey   = "Depends-On"
	RefKey         = "Ref"
	ChangesTestKey = "Changes-Test"
	// AdvisoryKey names, one ID per trailer, an advisory the patch fixes:
	// an entry of docs/security/record.tsv by its ID or an alias.
	AdvisoryKey = "Advisory"
)

var (
	dependsRE = regexp.MustCompile(`^[0-9]{4}$`)
	testRE    = regexp.MustCompile(`^(Test|Benchmark|Example|Fuzz)[A-Za-z0-9_]*$`)
)

// ChangedTest is one Changes-Test trailer: a top-level test of upstream
// whose behaviour the patch deliberately changes.
type ChangedTest struct {
	// Dir is the package's directory relative to the module root, such as
	// client/allocrunner.
	Dir  string
	Test string
}

// ParseChangedTest parses the value of a Changes-Test trailer.
func ParseChangedTest(v string) (ChangedTest, error) {
	f := strings.Fields(v)
	if len(f) != 2 {
		return ChangedTest{}, fmt.Errorf("Changes-Test %q: want `<package dir> <TestName>`, such as `client/allocrunner TestAllocRunner_Restore`", v)
	}
	dir := strings.TrimPrefix(f[0], "./")
	if dir == "" || strings.HasPrefix(dir, "/") || path.Clean(dir) != dir || strings.HasPrefix(dir, "..") {
		return ChangedTest{}, fmt.Errorf("Changes-Test %q: %q is not a package directory relative to the module root (such as client/allocrunner)", v, f[0])
	}
	if !testRE.MatchString(f[1]) {
		return ChangedTest{}, fmt.Errorf("Changes-Test %q: %q is not a top-level test name (TestXxx)", v, f[1])
	}
	return ChangedTest{Dir: dir, Test: f[1]}, nil
}

// ChangedTests returns the patch's valid Changes-Test trailers.
func (p *Patch) ChangedTests() []ChangedTest {
	var out []ChangedTest
	for _, v := range p.Values(ChangesTestKey) {
		if ct, err := ParseChangedTest(v); err == nil {
			out = append(out, ct)
		}
	}
	return out
}

// DependsOn returns the patch numbers its Depends-On trailers name, in
// the order given; malformed values are left out (Lint reports them).
func (p *Patch) DependsOn() []int {
	var out []int
	for _, v := range p.Values(DependsOnKey) {
		if dependsRE.MatchString(v) {
			n, _ := strconv.Atoi(v)
			out = append(out, n)
		}
	}
	return out
}

// lintTrailers checks the trailers that need no knowledge of the series:
// Ref URLs, Changes-Test syntax and Depends-On's form.
func (p *Patch) lintTrailers() []error {
	var errs []error
	for _, r := range p.Values(RefKey) {
		if err := checkURL(r); err != nil {
			errs = append(errs, fmt.Errorf("Ref: %v", err))
		}
	}
	for _, v := range p.Values(ChangesTestKey) {
		if _, err := ParseChangedTest(v); err != nil {
			errs = append(errs, err)
		}
	}
	for _, v := range p.Values(DependsOnKey) {
		if !dependsRE.MatchString(v) {
			errs = append(errs, fmt.Errorf("Depends-On %q: want the 4-digit number of an earlier patch of the series, such as 0003", v))
		}
	}
	for _, v := range p.Values(AdvisoryKey) {
		if !AdvisoryRE.MatchString(v) {
			errs = append(errs, fmt.Errorf("Advisory %q: want one advisory ID per trailer, such as CVE-2025-4922, GH-24541 or GO-2024-2670", v))
		}
	}
	if len(p.Values(ChangesTestKey)) > 0 && p.Body == "" {
		errs = append(errs, fmt.Errorf("Changes-Test: the commit message body must say why the test's behaviour changes"))
	}
	return errs
}

// LintInSeries checks what depends on the patch's place in the series:
// Depends-On names an earlier patch that exists (number is the patch's own
// number, 1-based), at most once; and `Upstream-Status: applied <v>` or
// `superseded <v> <url>` names a version above the pinned upstream version
// pinned.
func (p *Patch) LintInSeries(number, total int, pinned string) []error {
	var errs []error
	seen := map[int]bool{}
	for _, n := range p.DependsOn() {
		switch {
		case n == number:
			errs = append(errs, fmt.Errorf("Depends-On: %04d names the patch itself", n))
		case n < 1 || n > total:
			errs = append(errs, fmt.Errorf("Depends-On: %04d: the series has no such patch (0001..%04d)", n, total))
		case n > number:
			errs = append(errs, fmt.Errorf("Depends-On: %04d is a later patch; a patch can only depend on earlier ones (reorder the series)", n))
		case seen[n]:
			errs = append(errs, fmt.Errorf("Depends-On: %04d appears twice", n))
		}
		seen[n] = true
	}
	if st, err := p.Status(); err == nil && st.Version() != "" && pinned != "" && semver.IsValid(pinned) {
		if semver.Compare(st.Version(), pinned) <= 0 {
			if st.State == "applied" {
				errs = append(errs, fmt.Errorf("Upstream-Status: applied %s is not above the pinned upstream %s: the patch should have been dropped by the rebase onto it (name the upstream version that carries it)", st.Arg, pinned))
			} else {
				errs = append(errs, fmt.Errorf("Upstream-Status: superseded %s is not above the pinned upstream %s: the pinned upstream carries its form of the change already (keep what it lacks as a patch of its own, `pending`)", st.Version(), pinned))
			}
		}
	}
	return errs
}

// AdvisoryRE is the form of an Advisory trailer's value: a CVE, an
// upstream GitHub issue or PR (GH-), a Go vulnerability database entry or
// a GitHub security advisory.
var AdvisoryRE = regexp.MustCompile(`^(CVE-[0-9]{4}-[0-9]{4,}|GH-[0-9]+|GO-[0-9]{4}-[0-9]{4,}|GHSA(-[0-9a-z]{4}){3})$`)

// Advisories returns the IDs the patch's Advisory trailers name.
func (p *Patch) Advisories() []string { return p.Values(AdvisoryKey) }
