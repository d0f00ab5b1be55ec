// Package build builds the nomad binary of the work tree, stamped with the
// upstream version, the fork release and the work tree's revision.
package build

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/git"
	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
)

// VersionPackage is the package whose variables -ldflags -X sets.
const VersionPackage = "github.com/hashicorp/nomad/version"

// Stamp is what the binary reports about itself.
type Stamp struct {
	// Metadata is the version suffix after "+", such as fork.1.
	Metadata string
	// Revision is the work tree's HEAD, with +CHANGES when it has
	// uncommitted changes (as upstream's GNUmakefile does).
	Revision string
	// Date is the commit time of HEAD in RFC 3339.
	Date string
}

// LDFlags returns the -ldflags value for s.
func (s Stamp) LDFlags() string {
	return strings.Join([]string{
		"-X " + VersionPackage + ".VersionMetadata=" + s.Metadata,
		"-X " + VersionPackage + ".GitCommit=" + s.Revision,
		"-X " + VersionPackage + ".BuildDate=" + s.Date,
	}, " ")
}

// StampOf reads the revision and date of the work tree.
func StampOf(ctx context.Context, repo *git.Repo, metadata string) (Stamp, error) {
	s := Stamp{Metadata: metadata}
	line, err := repo.Line(ctx, "show", "--no-patch", "--format=%H %cI", "HEAD")
	if err != nil {
		return s, fmt.Errorf("reading work tree revision: %w", err)
	}
	s.Revision, s.Date, _ = strings.Cut(line, " ")
	dirty, err := repo.Status(ctx)
	if err != nil {
		return s, err
	}
	if len(dirty) > 0 {
		s.Revision += "+CHANGES"
	}
	return s, nil
}

// GoEnv is the environment for every go command run on a Nomad tree:
// the pinned toolchain (GOTOOLCHAIN, as the binaries are built: tests,
// checks and vet then run the compiler that ships, whatever Go the
// machine has), no workspace, no VCS stamping (the version is set with
// -ldflags), and -trimpath, so builds hold no paths of the machine and
// identical packages in different trees (work tree, check, baseline,
// bench) and commands (check, tests, the nomad binaries) share the build
// cache. Extra GOFLAGS go in goFlags.
func GoEnv(extra ...string) []string {
	return GoEnvFlags(nil, extra...)
}

// GoEnvFlags is GoEnv with goFlags added to GOFLAGS (flags the go
// commands a test runs itself must see too, such as -modfile and -tags).
func GoEnvFlags(goFlags []string, extra ...string) []string {
	flags := strings.Join(append([]string{"-trimpath", "-buildvcs=false"}, goFlags...), " ")
	env := append(os.Environ(), "GOTOOLCHAIN="+goToolchain(), "GOWORK=off", "GOFLAGS="+flags)
	return append(env, extra...)
}

// Go runs the go command with args in dir, in the environment of GoEnv, and
// returns what it printed on stdout and stderr together.
func Go(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gocmd.Cmd{Dir: dir, Env: GoEnv()}.CombinedOutput(ctx, args...)
	return string(out), err
}

// Nomad builds the nomad binary of the tree at dir into out for the
// tool's own runs (upstream's tests, bench, faults): the Test profile for
// the host.
func Nomad(ctx context.Context, dir, out string, s Stamp) error {
	return Test.Build(ctx, dir, out, s, Host())
}

// Build builds the nomad binary of the tree at dir into out for t, with
// the profile's flags and the pinned toolchain, and checks the binary's
// build information.
func (p Profile) Build(ctx context.Context, dir, out string, s Stamp, t Target) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	goVersion, err := CheckToolchain(ctx, dir)
	if err != nil {
		return err
	}
	if cc := t.CC(); cc != "" {
		if _, err := exec.LookPath(cc); err != nil {
			return fmt.Errorf("building for %s needs the C cross compiler %s (cgo, as upstream's release): run scripts/deps.sh, or apt-get install gcc-%s", t, cc, strings.TrimSuffix(cc, "-gcc"))
		}
	}
	// Its output goes to the tool's stderr as it comes (a release build
	// takes minutes); a tool killed outright takes the build with it.
	if err := (gocmd.Cmd{Dir: dir, Env: p.Env(t), Log: os.Stderr}).Run(ctx, p.Args(s, abs)...); err != nil {
		return fmt.Errorf("building %s: %w", out, err)
	}
	return p.verify(abs, t, goVersion)
}

var releaseRE = regexp.MustCompile(`^## v([0-9][^ +]*)\+(fork\.[0-9]+)\b`)

// ForkRelease returns the newest fork release CHANGELOG.md names for the
// upstream version, such as "fork.2" for a "## v1.5.3+fork.2" heading; the
// headings of other versions (other lines) are passed over.
func ForkRelease(changelog, upstreamVersion string) (string, error) {
	f, err := os.Open(changelog)
	if err != nil {
		return "", fmt.Errorf("reading fork release: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := strings.TrimPrefix(upstreamVersion, "v")
	for sc.Scan() {
		m := releaseRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		// Every maintained line has its releases in the one changelog:
		// the newest heading of this line's version counts.
		if m[1] != want {
			continue
		}
		return m[2], nil
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s has no `## v%s+fork.N` heading; add one", changelog, want)
}
