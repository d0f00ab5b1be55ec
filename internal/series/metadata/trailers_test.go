package metadata

import (
	"strings"
	"testing"
)

func withTrailers(trailers ...string) *Patch {
	p, err := Parse([]byte("Subject: [PATCH] client: x\n\nWhy.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n" +
		strings.Join(trailers, "\n") + "\n---\n"))
	if err != nil {
		panic(err)
	}
	return p
}

func TestLintSeriesTrailers(t *testing.T) {
	cases := []struct {
		trailer string
		problem string // "" for none
	}{
		{"Depends-On: 0001", ""},
		{"Depends-On: 1", "want the 4-digit number"},
		{"Depends-On: 0001 0002", "want the 4-digit number"},
		{"Ref: https://github.com/hashicorp/nomad/issues/18541", ""},
		{"Ref: hashicorp/nomad#18541", "not an https URL"},
		{"Changes-Test: client/allocrunner TestAllocRunner_Restore", ""},
		{"Changes-Test: ./client TestClient_X", ""},
		{"Changes-Test: client/allocrunner", "want `<package dir> <TestName>`"},
		{"Changes-Test: /abs/dir TestX", "not a package directory"},
		{"Changes-Test: ../up TestX", "not a package directory"},
		{"Changes-Test: client helperFunc", "not a top-level test name"},
		{"Advisory: CVE-2025-4922", ""},
		{"Advisory: GH-24541", ""},
		{"Advisory: GO-2024-2670", ""},
		{"Advisory: GHSA-rx97-6c62-55mf", ""},
		{"Advisory: CVE-2025-4922, CVE-2024-1329", "one advisory ID per trailer"},
		{"Advisory: cve-2025-4922", "one advisory ID per trailer"},
		{"Advisory: #24541", "one advisory ID per trailer"},
	}
	for _, c := range cases {
		errs := withTrailers(c.trailer).Lint()
		if c.problem == "" && len(errs) > 0 {
			t.Errorf("%s: unexpected problems %v", c.trailer, errs)
		}
		if c.problem != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.problem)) {
			t.Errorf("%s: problems %v, want one saying %q", c.trailer, errs, c.problem)
		}
	}
	if got := withTrailers("Changes-Test: ./client TestClient_X").ChangedTests(); len(got) != 1 || got[0] != (ChangedTest{"client", "TestClient_X"}) {
		t.Errorf("ChangedTests = %v", got)
	}
}

func TestLintInSeries(t *testing.T) {
	cases := []struct {
		trailers []string
		number   int
		problem  string
	}{
		{[]string{"Depends-On: 0001", "Depends-On: 0002"}, 3, ""},
		{[]string{"Depends-On: 0003"}, 3, "names the patch itself"},
		{[]string{"Depends-On: 0004"}, 3, "is a later patch"},
		{[]string{"Depends-On: 0000"}, 3, "no such patch"},
		// Beyond the series: no such patch, not "a later patch".
		{[]string{"Depends-On: 0099"}, 3, "no such patch (0001..0004)"},
		{[]string{"Depends-On: 0001", "Depends-On: 0001"}, 3, "appears twice"},
	}
	for _, c := range cases {
		errs := withTrailers(c.trailers...).LintInSeries(c.number, 4, "v1.5.3")
		if c.problem == "" && len(errs) > 0 {
			t.Errorf("%v: unexpected problems %v", c.trailers, errs)
		}
		if c.problem != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.problem)) {
			t.Errorf("%v: problems %v, want one saying %q", c.trailers, errs, c.problem)
		}
	}
	if got := withTrailers("Depends-On: 0002", "Depends-On: 0001").DependsOn(); len(got) != 2 || got[0] != 2 || got[1] != 1 {
		t.Errorf("DependsOn = %v", got)
	}
	applied := func(v string) *Patch {
		p, err := Parse([]byte("Subject: [PATCH] client: x\n\nWhy.\n\nUpstream-Status: applied " + v + "\nOrigin: nomad-client-fork\n---\n"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if errs := applied("v1.5.6").LintInSeries(1, 1, "v1.5.3"); len(errs) != 0 {
		t.Errorf("applied above the pin: %v", errs)
	}
	for _, v := range []string{"v1.5.3", "v1.5.2"} {
		if errs := applied(v).LintInSeries(1, 1, "v1.5.3"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "not above the pinned upstream v1.5.3") {
			t.Errorf("applied %s with pin v1.5.3: %v", v, errs)
		}
	}
	superseded := func(v string) *Patch {
		p, err := Parse([]byte("Subject: [PATCH] client: x\n\nWhy.\n\nUpstream-Status: superseded " + v + " https://github.com/hashicorp/nomad/pull/16722\nOrigin: nomad-client-fork\n---\n"))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if errs := superseded("v1.5.4").LintInSeries(1, 1, "v1.5.3"); len(errs) != 0 {
		t.Errorf("superseded above the pin: %v", errs)
	}
	if errs := superseded("v1.5.3").LintInSeries(1, 1, "v1.5.3"); len(errs) != 1 || !strings.Contains(errs[0].Error(), "superseded v1.5.3 is not above the pinned upstream v1.5.3") {
		t.Errorf("superseded v1.5.3 with pin v1.5.3: %v", errs)
	}
}
