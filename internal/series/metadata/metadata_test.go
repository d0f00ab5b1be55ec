package metadata

import (
	"strings"
	"testing"
)

const patch = `From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Dev <dev@example.com>
Date: Mon, 1 Jan 2024 00:00:00 +0000
Subject: [PATCH] client: a subject that is long enough to be folded by git
 format-patch onto a second line

Body line one.

Body line two.

Upstream-Status: submitted https://github.com/hashicorp/nomad/pull/1
Origin: nomad-client-fork
Bug: https://github.com/hashicorp/nomad/issues/9451
---
diff --git a/x b/x
`

func TestParse(t *testing.T) {
	p, err := Parse([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	if want := "client: a subject that is long enough to be folded by git format-patch onto a second line"; p.Subject != want {
		t.Errorf("subject = %q", p.Subject)
	}
	if p.Body != "Body line one.\n\nBody line two." {
		t.Errorf("body = %q", p.Body)
	}
	s, err := p.Status()
	if err != nil || s.State != "submitted" || s.Arg != "https://github.com/hashicorp/nomad/pull/1" {
		t.Errorf("status = %v, %v", s, err)
	}
	if got := p.Values("bug"); len(got) != 1 {
		t.Errorf("bugs = %v", got)
	}
	errs := p.Lint()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "subject is 89 characters") {
		t.Errorf("lint = %v, want only the long subject", errs)
	}
}

func TestParseStatus(t *testing.T) {
	cases := []struct {
		in    string
		state string
		ok    bool
	}{
		{"pending", "pending", true},
		{"pending now", "", false},
		{"submitted https://github.com/hashicorp/nomad/pull/2", "submitted", true},
		{"submitted http://insecure", "", false},
		{"submitted", "", false},
		{"applied v1.5.6", "applied", true},
		{"applied 1.5.6", "", false},
		{"inappropriate fork-only tooling", "inappropriate", true},
		{"inappropriate", "", false},
		{"backported", "", false},
		{"superseded v1.5.4 https://github.com/hashicorp/nomad/pull/16722", "superseded", true},
		{"superseded v1.5.4", "", false},
		{"superseded https://github.com/hashicorp/nomad/pull/16722", "", false},
		{"superseded 1.5.4 https://github.com/hashicorp/nomad/pull/16722", "", false},
		{"superseded v1.5.4 http://insecure", "", false},
	}
	for _, c := range cases {
		s, err := ParseStatus(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseStatus(%q) error = %v, want ok=%v", c.in, err, c.ok)
		}
		if c.ok && s.State != c.state {
			t.Errorf("ParseStatus(%q) = %q, want %q", c.in, s.State, c.state)
		}
	}
}

func TestTrailersOnlyFromLastParagraph(t *testing.T) {
	p, err := Parse([]byte("Subject: [PATCH] x: y\n\nFixes: not a trailer block\nbecause this line is prose.\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Trailers) != 0 {
		t.Errorf("trailers = %v, want none", p.Trailers)
	}
	if len(p.Lint()) < 2 {
		t.Errorf("lint should report missing Upstream-Status and Origin")
	}
}
