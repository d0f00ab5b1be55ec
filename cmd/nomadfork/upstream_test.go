package main

// The fake upstream every CLI test starts from, shared by the Go tests
// (newProject) and the script tests (the project and pin commands).

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nomad-client-fork/nomad-client-fork/internal/fixture"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

const (
	upPath     = "example.com/up"
	apiPath    = "example.com/up/api"
	apiVersion = "v0.0.0-20230101000000-abcdefabcdef"
)

// upstreamFiles is a tiny upstream shaped like Nomad: a main module whose
// go.mod replaces a nested api module it does not ship.
func upstreamFiles(prelude int, edits ...string) map[string]string {
	lib := fixture.Lib("lib", 30)
	for i := 0; i+1 < len(edits); i += 2 {
		lib = strings.Replace(lib, edits[i], edits[i+1], 1)
	}
	return map[string]string{
		"go.mod": "module example.com/up\n\ngo 1.21\n\nrequire example.com/up/api v0.0.0\n\nreplace example.com/up/api => ./api\n",
		// main.go switches Go's security limits on, as each line's series
		// does for nomad: the tool's build refuses a binary without them.
		"main.go": "//go:debug httpcookiemaxnum=3000\n//go:debug urlmaxqueryparams=10000\n//go:debug urlstrictcolons=1\n//go:debug rsa1024min=1\n\n" +
			"package main\n\nimport (\n\t\"example.com/up/api\"\n\t\"example.com/up/lib\"\n)\n\n" +
			"func main() { println(api.Name, lib.F1()) }\n",
		"lib/lib.go": strings.Repeat("// Prelude line.\n", prelude) + lib,
		// Upstream ships files its own .gitignore would ignore.
		".gitignore":    "build/\n",
		"build/keep.go": "package build\n",
	}
}

// upstreamModules are the versions the fake upstream's proxy serves.
func upstreamModules() []fixture.Module {
	when := time.Date(2023, 4, 4, 20, 9, 50, 0, time.UTC)
	return []fixture.Module{
		{Path: upPath, Version: "v1.0.0", Time: when, Files: upstreamFiles(0, "")},
		// v1.0.1 adds three lines above everything. Its nested module is
		// found as the pseudo-version of its commit; the others' through
		// targets.json.
		{Path: upPath, Version: "v1.0.1", Time: time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC),
			Commit: "abcdefabcdef0123456789abcdefabcdef012345", Files: upstreamFiles(3, "")},
		// v1.0.2 changes F10.
		{Path: upPath, Version: "v1.0.2", Time: when,
			Files: upstreamFiles(0, "func F10() int { return 10 }", "func F10() int { return 10 + 0 } // changed upstream")},
		// v1.1.0 changes a line next to F5: exact application fails, a
		// 3-way merge succeeds.
		{Path: upPath, Version: "v1.1.0", Time: when,
			Files: upstreamFiles(0, "// F6 returns 6.", "// F6 returns six.")},
		// v1.2.0 carries the change of the F5 patch.
		{Path: upPath, Version: "v1.2.0", Time: when,
			Files: upstreamFiles(0, "return 5 }", "return 50 }")},
		{Path: apiPath, Version: apiVersion, Time: when, Files: map[string]string{
			"go.mod": "module example.com/up/api\n\ngo 1.21\n",
			"api.go": "package api\n\n// Name names the api.\nconst Name = \"api\"\n",
		}},
	}
}

// writePin writes patches/<version>/upstream.json under root, with or
// without the nested api, from the proxy's checksums sums.
func writePin(root string, sums map[string]string, version string, withAPI bool) error {
	pn := &pin.Pin{Module: pin.Module{Path: upPath, Version: version, Sum: sums[upPath+"@"+version]}}
	if withAPI {
		pn.Nested = []pin.Module{{Path: apiPath, Version: apiVersion, Sum: sums[apiPath+"@"+apiVersion], Dir: "api"}}
	}
	if err := os.MkdirAll(filepath.Join(root, "patches", version), 0o755); err != nil {
		return err
	}
	return pn.Save(filepath.Join(root, "patches", version, pin.DefaultFile))
}

// seedProject lays out a fork of the fake upstream under root: the
// default line v1.0.0 pinned with its nested api, no patches, the rebase
// targets and a changelog.
func seedProject(root string, sums map[string]string) error {
	if err := writePin(root, sums, "v1.0.0", true); err != nil {
		return err
	}
	return fixture.WriteTree(root, map[string]string{
		"patches/default-line": "v1.0.0\n",
		"targets.json": `{"v1.0.2": {"example.com/up/api": "` + apiVersion + `"}, "v1.1.0": {"example.com/up/api": "` + apiVersion +
			`"}, "v1.2.0": {"example.com/up/api": "` + apiVersion + `"}}`,
		"CHANGELOG.md": "# Changelog\n\n## v1.0.0+fork.1\n",
	})
}
