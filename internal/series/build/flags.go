package build

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
)

// Toolchain is the Go release every nomad build uses, through GOTOOLCHAIN:
// the newest patch release of the installed Go minor when it was set (the
// module proxy serves it as golang.org/toolchain; `go list -m -versions
// golang.org/toolchain` lists them). A pinned release, not "the newest",
// keeps two builds of the same commit identical.
const Toolchain = "go1.26.11"

// ToolchainOverride is the environment variable that makes builds use
// another GOTOOLCHAIN value than Toolchain, such as "local": for the tool's
// own tests, whose synthetic module proxies cannot serve a toolchain.
// Releases refuse it.
const ToolchainOverride = "NOMADFORK_GOTOOLCHAIN"

// goToolchain is the GOTOOLCHAIN value builds use.
func goToolchain() string {
	if v := os.Getenv(ToolchainOverride); v != "" {
		return v
	}
	return Toolchain
}

// Pinned reports whether builds use the pinned Toolchain (no
// ToolchainOverride).
func Pinned() bool { return goToolchain() == Toolchain }

// Profile is one set of build flags for nomad. Every build of a nomad
// binary by the tool goes through a Profile, so build, release, the bench
// and the tests' nomad are built alike.
type Profile struct {
	// Name says what the profile is for.
	Name string
	// Tags are the build tags.
	Tags []string
}

var (
	// Release is upstream's official build: .github/workflows/build.yml
	// sets GO_TAGS "release", GNUmakefile adds "ui" (the web UI, in the
	// module as command/agent/bindata_assetfs.go) and builds with
	// CGO_ENABLED=1 and -trimpath; the version comes from -ldflags. It is
	// what `nomadfork build` (make) and `nomadfork release` build.
	Release = Profile{Name: "release", Tags: []string{"ui", "release"}}
	// Test is Release without the "release" tag, which keeps upstream's
	// test-only plugins (mock_driver, helper/pluginutils/catalog's
	// register_testing.go) that the bench, the fault scenarios and
	// upstream's tests run. Otherwise it is the release build.
	Test = Profile{Name: "test", Tags: []string{"ui"}}
)

// ID names the profile's flags and toolchain, for records that decide
// whether a binary built earlier can be reused.
func (p Profile) ID() string {
	return fmt.Sprintf("%s -tags %s cgo", Toolchain, strings.Join(p.Tags, ","))
}

// Target is a platform to build for.
type Target struct{ OS, Arch string }

// Host is the platform the tool runs on.
func Host() Target { return Target{OS: runtime.GOOS, Arch: runtime.GOARCH} }

func (t Target) String() string { return t.OS + "/" + t.Arch }

// crossCC is the C compiler of Debian's cross toolchain for each GOARCH
// (package gcc-<triplet>, which scripts/deps.sh installs).
var crossCC = map[string]string{
	"amd64": "x86_64-linux-gnu-gcc",
	"arm64": "aarch64-linux-gnu-gcc",
}

// CC is the C compiler a cgo build for t needs, or "" for the host's
// default.
func (t Target) CC() string {
	if t == Host() {
		return ""
	}
	return crossCC[t.Arch]
}

// Env is the environment of a build for t: GoEnv's (the pinned toolchain
// included), cgo, and the cross compiler when t is not the host.
func (p Profile) Env(t Target) []string {
	extra := []string{"CGO_ENABLED=1", "GOOS=" + t.OS, "GOARCH=" + t.Arch}
	if cc := t.CC(); cc != "" {
		extra = append(extra, "CC="+cc)
	}
	return GoEnv(extra...)
}

// Args are the go command's arguments that build the main package of the
// current directory into out.
func (p Profile) Args(s Stamp, out string) []string {
	return []string{"build", "-tags", strings.Join(p.Tags, ","), "-ldflags", s.LDFlags(), "-o", out, "."}
}

// ToolchainError is a failure to get the pinned toolchain.
type ToolchainError struct {
	Want   string
	Got    string // the toolchain the go command ran, if it ran
	Output string // what the go command printed
}

func (e *ToolchainError) Error() string {
	var b strings.Builder
	if e.Got != "" {
		fmt.Fprintf(&b, "GOTOOLCHAIN=%s ran Go %s", e.Want, e.Got)
	} else {
		fmt.Fprintf(&b, "getting Go %s through GOTOOLCHAIN failed (the go command downloads it from the module proxy, GOPROXY=%s)", e.Want, goproxy())
		if out := strings.TrimSpace(e.Output); out != "" {
			fmt.Fprintf(&b, ":\n%s\n", out)
		}
	}
	fmt.Fprintf(&b, "; to get it another way, download https://go.dev/dl/%s.%s-%s.tar.gz on a machine that can, unpack it and put its go/bin first on PATH (a go command of that release runs without downloading), or point GOPROXY at a proxy that serves golang.org/toolchain", e.Want, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

func goproxy() string {
	if v := os.Getenv("GOPROXY"); v != "" {
		return v
	}
	out, err := gocmd.Cmd{}.Output(context.Background(), "env", "GOPROXY")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// CheckToolchain makes sure the go command runs the pinned toolchain in
// dir, downloading it if needed (before any sandbox cuts the network), and
// returns its version (with ToolchainOverride set: whatever that runs).
func CheckToolchain(ctx context.Context, dir string) (string, error) {
	out, err := gocmd.Cmd{Dir: dir, Env: Release.Env(Host())}.CombinedOutput(ctx, "env", "GOVERSION")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &ToolchainError{Want: goToolchain(), Output: string(out)}
	}
	got := strings.TrimSpace(lastLine(string(out)))
	if Pinned() && got != Toolchain {
		return "", &ToolchainError{Want: Toolchain, Got: got, Output: string(out)}
	}
	return got, nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Verify reads the build information of the binary at path and checks
// that it was built by the profile for t with the pinned toolchain and
// none of Go's security limits switched off (CheckGODEBUG).
func (p Profile) Verify(path string, t Target) error {
	if err := p.verify(path, t, Toolchain); err != nil {
		return err
	}
	return CheckBinaryGODEBUG(path)
}

// CheckBinaryGODEBUG checks the DefaultGODEBUG of the binary at path
// (CheckGODEBUG). The fork's builds (the build verb, releases) are
// checked; the tool's builds of other trees (unpatched upstream for the
// bench and to try a failure on upstream) are not.
func CheckBinaryGODEBUG(path string) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading build information of %s: %w", path, err)
	}
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" {
			if err := CheckGODEBUG(s.Value); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	return nil
}

func (p Profile) verify(path string, t Target, goVersion string) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading build information of %s: %w", path, err)
	}
	if info.GoVersion != goVersion {
		return fmt.Errorf("%s was built by %s, want %s", path, info.GoVersion, goVersion)
	}
	want := map[string]string{
		"-tags":       strings.Join(p.Tags, ","),
		"-trimpath":   "true",
		"CGO_ENABLED": "1",
		"GOOS":        t.OS,
		"GOARCH":      t.Arch,
	}
	for _, s := range info.Settings {
		if w, ok := want[s.Key]; ok {
			if s.Value != w {
				return fmt.Errorf("%s was built with %s=%s, want %s", path, s.Key, s.Value, w)
			}
			delete(want, s.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		return fmt.Errorf("%s was built without %s=%s", path, k, want[k])
	}
	return nil
}
