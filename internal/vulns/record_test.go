package vulns

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRecord(t *testing.T) {
	record := []RecordEntry{
		{ID: "CVE-2025-4922", Aliases: []string{"GO-2025-3758"}, Component: "wi policies", Side: "server", Line: 1},
		{ID: "GH-24541", Component: "executeTemplate", Side: "client", Line: 2},
		{ID: "CVE-2024-1329", Aliases: []string{"GO-2024-2538"}, Component: "template", Side: "client", DB: "the database's range is wrong", Line: 3},
		{ID: "CVE-2023-3300", Aliases: []string{"GO-2024-2671"}, Component: "search", Side: "server", Line: 4},
	}
	statuses := []LineStatus{
		{ID: "GO-2025-3758", Status: NotAffected, Reason: "r", Line: 1}, // by an alias
		{ID: "CVE-2024-1329", Status: Affected, Reason: "r", Line: 2},
		{ID: "CVE-2023-3300", Status: Affected, Reason: "r", Line: 3},
		{ID: "CVE-1999-0001", Status: Affected, Reason: "r", Line: 4},
	}
	fixes := map[string][]string{"GH-24541": {"0012"}, "GH-99999": {"0013"}}
	advisories := []Advisory{
		{ID: "GO-2025-3758", Module: "m"},
		{ID: "GO-2024-2671", Module: "m"},
		{ID: "GO-2026-0001", Aliases: []string{"CVE-2026-0001"}, Module: "m"},
	}
	c := CheckRecord(record, statuses, fixes, advisories, true, "security-v1.tsv")
	if got := c.Statuses[1].Text(); got != "fixed by 0012" {
		t.Errorf("GH-24541 = %q, want fixed by 0012 (its Advisory trailer)", got)
	}
	if got := c.Statuses[0].Text(); got != "not affected" {
		t.Errorf("CVE-2025-4922 = %q, want not affected (its status, named by an alias)", got)
	}
	want := []string{
		"CVE-1999-0001 is not in",                // a status of no entry
		"Advisory: GH-99999 trailer of 0013",     // a trailer of no entry
		"GO-2026-0001 (CVE-2026-0001) affects",   // a database advisory the record lacks
		"says CVE-2025-4922 affects this line's", // disagreement without a reason
	}
	all := strings.Join(c.Problems, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
	if len(c.Problems) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(c.Problems), len(want), all)
	}
	// An entry without a status or a fix.
	c = CheckRecord(record, statuses[:1], nil, nil, false, "security-v1.tsv")
	if all := strings.Join(c.Problems, "\n"); !strings.Contains(all, "GH-24541 (executeTemplate) has no status") {
		t.Errorf("problems lack the entry without a status:\n%s", all)
	}
}

// The repository's record and every line's statuses read, and every
// entry has a status on every line.
func TestRepoRecordComplete(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, line := range []string{"v1.5.3", "v1.5.6", "v1.6.1"} {
		c, err := LineRecord(root, StatusFile(filepath.Join(root, "patches", line, "baseline"), line), nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Problems) > 0 {
			t.Errorf("%s:\n%s", line, strings.Join(c.Problems, "\n"))
		}
	}
}
