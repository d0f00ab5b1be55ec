package build

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckGODEBUG(t *testing.T) {
	for _, tc := range []struct {
		name, defaults, wantErr string
	}{
		{"on", "httpcookiemaxnum=3000,panicnil=1,urlmaxqueryparams=10000,urlstrictcolons=1", ""},
		{"unset", "panicnil=1", ""},
		{"other at 0", "winsymlink=0,x509rsacrt=0", ""},
		{"one off", "httpcookiemaxnum=3000,urlmaxqueryparams=0", "urlmaxqueryparams=0"},
		{"all named", "httpcookiemaxnum=0,urlstrictcolons=0", "httpcookiemaxnum=0, urlstrictcolons=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckGODEBUG(tc.defaults)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckGODEBUG(%q): %v", tc.defaults, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CheckGODEBUG(%q) = %v, want an error naming %s", tc.defaults, err, tc.wantErr)
			}
		})
	}
}

// TestCheckGODEBUG_Binary builds a main package of a module at go 1.20
// (the go directive of the v1.5.6 and v1.6.1 lines) with the local
// toolchain: without directives its DefaultGODEBUG has the limits at 0,
// with SecurityGODEBUG's //go:debug directives it passes.
func TestCheckGODEBUG_Binary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	build := func(t *testing.T, header string) string {
		dir := t.TempDir()
		write := func(name, text string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write("go.mod", "module example.com/godebug\n\ngo 1.20\n")
		write("main.go", header+"package main\n\nfunc main() {}\n")
		out := filepath.Join(dir, "bin")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
		info, err := buildinfo.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range info.Settings {
			if s.Key == "DefaultGODEBUG" {
				return s.Value
			}
		}
		return ""
	}
	t.Run("go 1.20 defaults", func(t *testing.T) {
		if err := CheckGODEBUG(build(t, "")); err == nil || !strings.Contains(err.Error(), "urlmaxqueryparams=0") {
			t.Fatalf("CheckGODEBUG = %v, want urlmaxqueryparams=0 refused", err)
		}
	})
	t.Run("go:debug directives", func(t *testing.T) {
		var h strings.Builder
		for k, v := range SecurityGODEBUG {
			h.WriteString("//go:debug " + k + "=" + v + "\n")
		}
		if err := CheckGODEBUG(build(t, h.String())); err != nil {
			t.Fatal(err)
		}
	})
}
