package export

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output directory that cannot be made stops the export before any
// work, with the flag to change: a file stands where the directory's
// parent should be.
func TestExportUnwritableOutput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Export(context.Background(), nil, "HEAD", nil, filepath.Join(file, "export"), filepath.Join(file, "scratch"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "give -o a directory you can write") {
		t.Fatalf("Export: %v; want an error naming -o", err)
	}
}

// -no-build means something only with -verify; alone it was ignored.
func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Out: "out"}, ""},
		{Options{Out: "out", Verify: true, NoBuild: true}, ""},
		{Options{Out: " "}, "-o needs a directory"},
		{Options{Out: "out", NoBuild: true}, "-no-build goes with -verify"},
	} {
		err := tc.o.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v.Check() = %v, want %q", tc.o, err, tc.want)
		}
	}
}
