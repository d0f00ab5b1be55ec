package check

import (
	"strings"
	"testing"
)

// A patch file converted to CRLF as a whole is named, whatever its diff
// lines begin with; a patch whose diff carries CRLF content is not.
func TestCRLFEndings(t *testing.T) {
	patch := "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
	cases := []struct {
		name string
		data string
		want bool
	}{
		{"LF", patch, false},
		{"converted to CRLF", strings.ReplaceAll(patch, "\n", "\r\n"), true},
		{"CRLF content only", strings.Replace(patch, "+b\n", "+b\r\n", 1), false},
	}
	for _, c := range cases {
		if got := crlfEndings([]byte(c.data)); got != c.want {
			t.Errorf("%s: crlfEndings = %v, want %v", c.name, got, c.want)
		}
	}
}
