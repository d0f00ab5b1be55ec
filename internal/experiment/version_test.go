package experiment

import "testing"

func TestParseVersion(t *testing.T) {
	v, err := ParseVersion([]byte("Nomad v1.5.3+fork.1\nBuildDate 2026-12-01T10:00:00Z\nRevision 2b0b28297b47\n"))
	want := Version{Line: "Nomad v1.5.3+fork.1", Version: "1.5.3+fork.1", Revision: "2b0b28297b47"}
	if err != nil || v != want {
		t.Fatalf("got %+v, %v; want %+v", v, err, want)
	}
	if _, err := ParseVersion([]byte("something else\n")); err == nil {
		t.Fatal("no error for output without a version")
	}
}
