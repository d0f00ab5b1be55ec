package harness

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nomad-client-fork/nomad-client-fork/internal/harness/gotest"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/metadata"
)

func TestChangedTests(t *testing.T) {
	md, err := metadata.Parse([]byte("Subject: [PATCH] client: x\n\nWhy the test changes.\n\nUpstream-Status: pending\nOrigin: nomad-client-fork\n" +
		"Changes-Test: client/allocrunner TestAllocRunner_Restore\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	patches := []series.Patch{{Name: "0001-a.patch", Number: 1, Meta: &metadata.Patch{}}, {Name: "0002-b.patch", Number: 2, Meta: md}}
	got, err := ChangedTests(patches, "github.com/hashicorp/nomad")
	if err != nil {
		t.Fatal(err)
	}
	want := []gotest.Known{{Package: "github.com/hashicorp/nomad/client/allocrunner", Test: "TestAllocRunner_Restore", Reason: "deliberately changed by 0002 (Changes-Test)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ChangedTests = %+v, want %+v", got, want)
	}
	if _, err := ChangedTests([]series.Patch{{Name: "0001-bad.patch", MetaErr: errors.New("no Subject")}}, "m"); err == nil {
		t.Error("a patch whose metadata does not parse: want an error")
	}
}

// TestUserVet: contract runs go test with go test's default vet on a tree
// at go 1.20 (the v1.5.6 and v1.6.1 lines) and with -vet=off, which the
// README tells users to pass, from go 1.24 on (v1.5.3's 0011: go 1.26.0).
func TestUserVet(t *testing.T) {
	for _, tc := range []struct {
		goDirective string
		want        []string
	}{
		{"1.20", nil},
		{"1.23.4", nil},
		{"1.24", []string{noVet}},
		{"1.26.0", []string{noVet}},
	} {
		gomod := filepath.Join(t.TempDir(), "go.mod")
		text := "module github.com/hashicorp/nomad\n\ngo " + tc.goDirective + "\n\ngodebug default=go1.20\n"
		if err := os.WriteFile(gomod, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := userVet(gomod)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("go %s: userVet = %q, want %q", tc.goDirective, got, tc.want)
		}
	}
}
