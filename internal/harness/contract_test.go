package harness

import (
	"errors"
	"reflect"
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
