package series

import (
	"bufio"
	"bytes"
	"path"
	"regexp"
	"sort"
	"strings"
)

// OwnTests are the top-level tests a patch adds or modifies in one package.
type OwnTests struct {
	// Dir is the package directory, such as client/allocrunner.
	Dir   string
	Tests []string
}

var (
	addedTestRE = regexp.MustCompile(`^\+func (Test[A-Za-z0-9_]*)\(`)
	hunkTestRE  = regexp.MustCompile(`^@@ [^@]+ @@ func (Test[A-Za-z0-9_]*)\(`)
)

// OwnTests returns the Test functions the patch's _test.go hunks add, or
// change (the function a hunk header names as its context), by package
// directory.
func (p Patch) OwnTests() []OwnTests {
	return patchTests(p.Data)
}

func patchTests(data []byte) []OwnTests {
	byDir := map[string]map[string]bool{}
	var file string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "diff --git a/"); ok {
			file, _, _ = strings.Cut(rest, " b/")
			if !strings.HasSuffix(file, "_test.go") {
				file = ""
			}
			continue
		}
		if file == "" {
			continue
		}
		m := addedTestRE.FindStringSubmatch(line)
		if m == nil {
			m = hunkTestRE.FindStringSubmatch(line)
		}
		if m == nil {
			continue
		}
		dir := path.Dir(file)
		if byDir[dir] == nil {
			byDir[dir] = map[string]bool{}
		}
		byDir[dir][m[1]] = true
	}
	var out []OwnTests
	for dir, tests := range byDir {
		ot := OwnTests{Dir: dir}
		for t := range tests {
			ot.Tests = append(ot.Tests, t)
		}
		sort.Strings(ot.Tests)
		out = append(out, ot)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out
}

// TestsOnly returns the patch's diff restricted to its _test.go files (the
// commit message and the production changes left out), or nil if it
// changes no test file: what is applied to upstream to prove that upstream
// carries the patch's behaviour.
func (p Patch) TestsOnly() []byte {
	var out bytes.Buffer
	keep := false
	for _, line := range bytes.SplitAfter(p.Data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("diff --git a/")); ok {
			file, _, _ := bytes.Cut(rest, []byte(" b/"))
			keep = bytes.HasSuffix(file, []byte("_test.go"))
		} else if bytes.Equal(bytes.TrimRight(line, "\n"), []byte("-- ")) {
			// The format-patch signature after the last diff.
			keep = false
		}
		if keep {
			out.Write(line)
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return out.Bytes()
}
