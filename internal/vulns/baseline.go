package vulns

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Status is what a baseline entry says of a vulnerability.
type Status string

const (
	// StatusOpen: the line still carries it; the reason says why.
	StatusOpen Status = "open"
	// StatusFixed: a patch of the series fixes it (Entry.Patch names it).
	StatusFixed Status = "fixed"
	// StatusNotAffected: it does not apply to the line (such as an
	// Enterprise-only feature); the reason says why.
	StatusNotAffected Status = "not-affected"
)

// Entry is one line of a baseline file:
//
//	<id> <TAB> <module> <TAB> <status> <TAB> <reason>
//
// where status is open, not-affected or fixed:NNNN (the patch number).
type Entry struct {
	ID     string
	Module string
	Status Status
	// Patch is the 4-digit number of the patch that fixes it (StatusFixed).
	Patch  string
	Reason string
	// Line is the entry's line number in its file.
	Line int
}

// Key returns the entry's vulnerability and module.
func (e Entry) Key() Key { return Key{e.ID, e.Module} }

// StatusText is the status as the file writes it.
func (e Entry) StatusText() string {
	if e.Status == StatusFixed {
		return "fixed:" + e.Patch
	}
	return string(e.Status)
}

// Baseline is a line's recorded vulnerabilities.
type Baseline struct {
	Entries []Entry
}

// Find returns the entry for k, or nil.
func (b *Baseline) Find(k Key) *Entry {
	for i := range b.Entries {
		if b.Entries[i].Key() == k {
			return &b.Entries[i]
		}
	}
	return nil
}

var (
	idRE    = regexp.MustCompile(`^GO-[0-9]{4}-[0-9]{4,}$`)
	fixedRE = regexp.MustCompile(`^fixed:([0-9]{4})$`)
)

// BaselineHeader starts every baseline file.
const BaselineHeader = `# The vulnerabilities this line still carries or fixes in its series
# (nomadfork vulns checks it; see docs/vulns.md). One per line, tab-separated:
#   <GO id>	<module>	open | not-affected | fixed:NNNN	<reason>
`

// ReadBaseline reads a baseline file; a missing file is an empty baseline.
func ReadBaseline(name string) (*Baseline, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return &Baseline{}, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := ParseBaseline(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// ParseBaseline parses a baseline's content, naming the first bad line.
func ParseBaseline(data []byte) (*Baseline, error) {
	b := &Baseline{}
	seen := map[Key]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d: want 4 tab-separated fields (id, module, status, reason), have %d", n, len(f))
		}
		e := Entry{ID: f[0], Module: f[1], Reason: strings.TrimSpace(f[3]), Line: n}
		switch st := f[2]; {
		case st == string(StatusOpen), st == string(StatusNotAffected):
			e.Status = Status(st)
		case fixedRE.MatchString(st):
			e.Status, e.Patch = StatusFixed, fixedRE.FindStringSubmatch(st)[1]
		default:
			return nil, fmt.Errorf("line %d: status %q: want open, not-affected or fixed:NNNN", n, st)
		}
		if !idRE.MatchString(e.ID) {
			return nil, fmt.Errorf("line %d: %q is not a Go vulnerability ID (GO-YYYY-NNNN)", n, e.ID)
		}
		if e.Module == "" {
			return nil, fmt.Errorf("line %d: no module", n)
		}
		if e.Reason == "" {
			return nil, fmt.Errorf("line %d: %s has no reason: say why the line carries it", n, e.ID)
		}
		if prev, ok := seen[e.Key()]; ok {
			return nil, fmt.Errorf("line %d: %s is already on line %d", n, e.Key(), prev)
		}
		seen[e.Key()] = n
		b.Entries = append(b.Entries, e)
	}
	return b, sc.Err()
}

// Format writes the baseline, sorted by module and ID, under BaselineHeader.
func (b *Baseline) Format() []byte {
	es := append([]Entry(nil), b.Entries...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Module != es[j].Module {
			return es[i].Module < es[j].Module
		}
		return es[i].ID < es[j].ID
	})
	var buf bytes.Buffer
	buf.WriteString(BaselineHeader)
	for _, e := range es {
		fmt.Fprintf(&buf, "%s\t%s\t%s\t%s\n", e.ID, e.Module, e.StatusText(), e.Reason)
	}
	return buf.Bytes()
}
