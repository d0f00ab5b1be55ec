package vulns

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// The record: docs/security/record.tsv, the curated list of Nomad's
// published security fixes (from upstream's changelogs and advisories,
// facts only), and per line patches/<line>/baseline/security-<line>.tsv,
// the status of every record entry decided from that line's code. "Fixed
// by NNNN" is never written there: it comes from the series' Advisory
// trailers.

// RecordFile is the record's path in the repository.
const RecordFile = "docs/security/record.tsv"

// RecordEntry is one published security fix of Nomad.
type RecordEntry struct {
	ID      string
	Aliases []string
	// Component says what was wrong; Side is client, server or both.
	Component, Side string
	// Fixed are the upstream (community) versions with the fix; PR the
	// upstream PR or issue.
	Fixed, PR string
	// DB is the written reason the vulnerability database disagrees with
	// the record ("" when it does not, or has no entry).
	DB   string
	Note string
	Line int
}

// Names are the entry's ID and its aliases.
func (e RecordEntry) Names() []string { return append([]string{e.ID}, e.Aliases...) }

// ReadRecord reads the record: eight tab-separated columns, `-` for an
// empty one, `#` comments.
func ReadRecord(file string) ([]RecordEntry, error) {
	var out []RecordEntry
	err := readTSV(file, 8, func(n int, f []string) error {
		e := RecordEntry{ID: f[0], Component: f[2], Side: f[3], Fixed: f[4], PR: f[5], DB: f[6], Note: f[7], Line: n}
		if f[1] != "" {
			for _, a := range strings.Split(f[1], ",") {
				e.Aliases = append(e.Aliases, strings.TrimSpace(a))
			}
		}
		switch e.Side {
		case "client", "server", "both":
		default:
			return fmt.Errorf("side %q: want client, server or both", e.Side)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// Line statuses, as security-<line>.tsv writes them.
const (
	Affected    = "affected"
	NotAffected = "not-affected"
)

// LineStatus is a line's decision on a record entry.
type LineStatus struct {
	ID     string
	Status string // Affected or NotAffected
	// Reason says why; for Affected also what mitigates it until fixed.
	Reason string
	Line   int
}

// ReadLineStatuses reads a line's statuses: `<record ID> <TAB>
// affected|not-affected <TAB> <reason>`. A missing file is no statuses.
func ReadLineStatuses(file string) ([]LineStatus, error) {
	if _, err := os.Stat(file); os.IsNotExist(err) {
		return nil, nil
	}
	var out []LineStatus
	err := readTSV(file, 3, func(n int, f []string) error {
		if f[1] != Affected && f[1] != NotAffected {
			return fmt.Errorf("status %q: want affected or not-affected (fixed comes from the series' Advisory trailers)", f[1])
		}
		if f[2] == "" {
			return fmt.Errorf("%s: the reason is missing", f[0])
		}
		out = append(out, LineStatus{ID: f[0], Status: f[1], Reason: f[2], Line: n})
		return nil
	})
	return out, err
}

func readTSV(file string, cols int, each func(n int, f []string) error) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != cols {
			return fmt.Errorf("%s:%d: %d tab-separated columns, want %d", file, n, len(f), cols)
		}
		for i := range f {
			if f[i] = strings.TrimSpace(f[i]); f[i] == "-" {
				f[i] = ""
			}
		}
		if err := each(n, f); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	}
	return sc.Err()
}

// Fixes maps every advisory ID the series' Advisory trailers name to the
// patches (0001) that name it.
func Fixes(patches []series.Patch) (map[string][]string, error) {
	out := map[string][]string{}
	for _, p := range patches {
		m, err := p.Metadata()
		if err != nil {
			return nil, err
		}
		for _, id := range m.Advisories() {
			out[id] = append(out[id], fmt.Sprintf("%04d", p.Number))
		}
	}
	return out, nil
}

// RecordStatus is a record entry's status on a line.
type RecordStatus struct {
	Entry RecordEntry
	// FixedBy are the patches whose Advisory trailers name the entry;
	// when set they decide the status.
	FixedBy []string
	// Status is the line's decision, nil when it has none.
	Status *LineStatus
	// InDB says whether the vulnerability database has the entry (by an
	// alias) as affecting the line's upstream version.
	InDB bool
}

// Text is the status as documents show it.
func (s RecordStatus) Text() string {
	switch {
	case len(s.FixedBy) > 0:
		return "fixed by " + strings.Join(s.FixedBy, ", ")
	case s.Status == nil:
		return "**no status**"
	case s.Status.Status == Affected:
		return "**affected**"
	}
	return "not affected"
}

// Reason is the status's reason.
func (s RecordStatus) Reason() string {
	if s.Status == nil {
		return ""
	}
	return s.Status.Reason
}

// RecordCheck is the record's gate on a line.
type RecordCheck struct {
	Statuses []RecordStatus
	Problems []string
}

// CheckRecord decides every record entry's status on a line from its
// statuses and the series' fixes, and says what is wrong: an entry with
// no status (and no fix), a status or trailer naming no entry, a database
// advisory of Nomad affecting the line that the record lacks, and the
// database and the record disagreeing about the line without the record
// saying why.
//
// withDB says whether advisories were read: without, the database is not
// compared.
func CheckRecord(record []RecordEntry, statuses []LineStatus, fixes map[string][]string, advisories []Advisory, withDB bool, statusFile string) *RecordCheck {
	c := &RecordCheck{}
	byName := map[string]int{}
	for i, e := range record {
		for _, n := range e.Names() {
			byName[n] = i
		}
	}
	status := map[int]*LineStatus{}
	for i := range statuses {
		s := &statuses[i]
		idx, ok := byName[s.ID]
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("%s:%d: %s is not in %s: add it there first, or remove the line", statusFile, s.Line, s.ID, RecordFile))
			continue
		}
		status[idx] = s
	}
	fixedBy := map[int][]string{}
	var trailerIDs []string
	for id := range fixes {
		trailerIDs = append(trailerIDs, id)
	}
	sort.Strings(trailerIDs)
	for _, id := range trailerIDs {
		idx, ok := byName[id]
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("the Advisory: %s trailer of %s names no entry of %s: add the entry, or name it by its ID there", id, strings.Join(fixes[id], ", "), RecordFile))
			continue
		}
		fixedBy[idx] = append(fixedBy[idx], fixes[id]...)
	}
	inDB := map[int]bool{}
	for _, a := range advisories {
		idx, ok := -1, false
		for _, n := range append([]string{a.ID}, a.Aliases...) {
			if i, found := byName[n]; found {
				idx, ok = i, true
				break
			}
		}
		if !ok {
			c.Problems = append(c.Problems, fmt.Sprintf("the vulnerability database's %s (%s) affects this line and is not in %s: add it (facts from upstream's advisory) and its status here", a.ID, strings.Join(a.Aliases, ", "), RecordFile))
			continue
		}
		inDB[idx] = true
	}
	for i, e := range record {
		s := RecordStatus{Entry: e, FixedBy: dedupe(fixedBy[i]), Status: status[i], InDB: inDB[i]}
		c.Statuses = append(c.Statuses, s)
		if len(s.FixedBy) == 0 && s.Status == nil {
			c.Problems = append(c.Problems, fmt.Sprintf("%s (%s) has no status on this line: add `%s\\taffected|not-affected\\t<reason>` to %s, decided from the line's code, or fix it in the series with an `Advisory: %s` trailer", e.ID, e.Component, e.ID, statusFile, e.ID))
			continue
		}
		// The record's entries the database knows: it and the line's
		// status must agree, or the record says why not.
		if !withDB || !hasGoID(e) || e.DB != "" {
			continue
		}
		lineAffected := len(s.FixedBy) > 0 || s.Status.Status == Affected
		if lineAffected != s.InDB {
			db := "affects"
			if !s.InDB {
				db = "does not affect"
			}
			c.Problems = append(c.Problems, fmt.Sprintf("%s:%d: the vulnerability database says %s %s this line's upstream version, the line's status says %s: write why in the record's db column, or correct the status",
				RecordFile, e.Line, e.ID, db, s.Text()))
		}
	}
	return c
}

func hasGoID(e RecordEntry) bool {
	for _, n := range e.Names() {
		if strings.HasPrefix(n, "GO-") {
			return true
		}
	}
	return false
}

func dedupe(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// RecordTable is the Markdown table of the record's statuses on a line:
// what docs/security/<line>.md and RELEASE.md show.
func RecordTable(statuses []RecordStatus) string {
	var b strings.Builder
	b.WriteString("| ID | Aliases | What | Side | Fixed upstream in | Status on this line | Reason, mitigation |\n|---|---|---|---|---|---|---|\n")
	for _, s := range statuses {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", s.Entry.ID, cell(strings.Join(s.Entry.Aliases, ", ")), cell(s.Entry.Component),
			s.Entry.Side, cell(s.Entry.Fixed), s.Text(), cell(s.Reason()))
	}
	return b.String()
}

// LineRecord reads the record (in root) and the line's statuses
// (statusFile) and decides every entry's status from them and the
// series; advisories are the database's for the line, compared with the
// record when withDB.
func LineRecord(root, statusFile string, patches []series.Patch, advisories []Advisory, withDB bool) (*RecordCheck, error) {
	file := filepath.Join(root, RecordFile)
	if _, err := os.Stat(file); os.IsNotExist(err) {
		// A project without a record (the tool's own tests' fixtures).
		return &RecordCheck{}, nil
	}
	record, err := ReadRecord(file)
	if err != nil {
		return nil, err
	}
	statuses, err := ReadLineStatuses(statusFile)
	if err != nil {
		return nil, err
	}
	fixes, err := Fixes(patches)
	if err != nil {
		return nil, err
	}
	return CheckRecord(record, statuses, fixes, advisories, withDB, statusFile), nil
}
