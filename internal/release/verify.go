package release

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"

	"github.com/nomad-client-fork/nomad-client-fork/internal/hint"
)

// ErrNoRelease is returned by Verify when there is no release to verify.
var ErrNoRelease = errors.New("no release to verify")

// MismatchError is a rebuild whose sums differ from the release's.
type MismatchError struct {
	Dir   string
	Diffs []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the rebuild differs from %s (not reproducible):\n  %s", e.Dir, strings.Join(e.Diffs, "\n  "))
}

// Verify rebuilds the release of o in a scratch directory and compares
// its SHA256SUMS with the one in o.Dir(). It returns the rebuild's sums.
func Verify(ctx context.Context, o Options) (string, error) {
	have, err := os.ReadFile(filepath.Join(o.Dir(), SumsFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", hint.Errorf("%w: %s does not exist; make it with %s first", ErrNoRelease, filepath.Join(o.Dir(), SumsFile), hint.Run("release"))
	}
	if err != nil {
		return "", err
	}
	r, err := stageRelease(ctx, o)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(filepath.Dir(r.Dir))
	if diffs := Diff(string(have), r.Sums); len(diffs) > 0 {
		return r.Sums, &MismatchError{Dir: o.Dir(), Diffs: diffs}
	}
	return r.Sums, nil
}

// CheckResult is the outcome of one check of Check.
type CheckResult struct {
	Name string
	// Skipped says why the check did not run; empty when it ran.
	Skipped string
}

// Check checks the artifacts of the release in o.Dir(): the sums, each
// zip (exactly nomad), its binary (an ELF of the platform, built by the
// release profile and the pinned toolchain, printing its version — under
// qemu-user for another architecture, skipped when that is not
// installed — in the sandbox), each package against upstream's layout,
// and that the host's binary serves the web UI. self is the tool's
// executable (for the sandbox); scratch holds the extracted binaries.
func Check(ctx context.Context, o Options, self, scratch string, log io.Writer) ([]CheckResult, error) {
	dir := o.Dir()
	version := o.Version()
	var results []CheckResult
	step := func(name string, fn func() (skipped string, err error)) error {
		var skipped string
		err := progress.Step(log, name, func() error {
			var err error
			skipped, err = fn()
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		results = append(results, CheckResult{Name: name, Skipped: skipped})
		return nil
	}
	err := step("checking "+SumsFile, func() (string, error) {
		have, err := os.ReadFile(filepath.Join(dir, SumsFile))
		if err != nil {
			return "", err
		}
		names := Names(string(have))
		got, err := Sums(dir, names)
		if err != nil {
			return "", err
		}
		if diffs := Diff(string(have), got); len(diffs) > 0 {
			return "", fmt.Errorf("files differ from %s: %s", SumsFile, strings.Join(diffs, "; "))
		}
		for _, t := range Targets {
			for _, n := range []string{ZipName(version, t), DebName(version, t.Arch)} {
				if _, ok := parseSums(string(have))[n]; !ok {
					return "", fmt.Errorf("%s does not list %s", SumsFile, n)
				}
			}
		}
		return "", nil
	})
	if err != nil {
		return results, err
	}
	if err := os.RemoveAll(scratch); err != nil {
		return results, err
	}
	var hostBin string
	for _, t := range Targets {
		bin := filepath.Join(scratch, t.OS+"_"+t.Arch, "nomad")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			return results, err
		}
		zip := ZipName(version, t)
		err := step(fmt.Sprintf("checking %s: exactly nomad, an ELF for %s, built by %s with -tags %s", zip, t, build.Toolchain, strings.Join(build.Release.Tags, ",")), func() (string, error) {
			if err := CheckZip(filepath.Join(dir, zip), bin); err != nil {
				return "", err
			}
			if err := CheckELF(bin, t.Arch); err != nil {
				return "", err
			}
			return "", build.Release.Verify(bin, t)
		})
		if err != nil {
			return results, err
		}
		if t == build.Host() {
			hostBin = bin
		}
		err = step(fmt.Sprintf("running `nomad version` of %s in the sandbox", t), func() (string, error) {
			prefix, ok := Emulator(t.Arch)
			if !ok {
				return "qemu-user is not installed (scripts/deps.sh installs it where apt has it: apt-cache policy qemu-user)", nil
			}
			return "", checkVersion(ctx, append(prefix, bin, "version"), version)
		})
		if err != nil {
			return results, err
		}
		deb := DebName(version, t.Arch)
		err = step("checking "+deb+" with dpkg-deb -f/-I/-c against "+LayoutDir, func() (string, error) {
			return "", CheckDeb(ctx, filepath.Join(dir, deb), version, t.Arch, filepath.Join(o.Tree.Dir, LayoutDir))
		})
		if err != nil {
			return results, err
		}
	}
	if hostBin != "" {
		err := step("checking that the "+build.Host().String()+" binary serves the web UI at /ui/ (dev agent in the sandbox)", func() (string, error) {
			return "", CheckUI(ctx, self, hostBin, filepath.Join(scratch, "ui-check"))
		})
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// Names returns the file names a SHA256SUMS content lists, in order.
func Names(sums string) []string {
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(sums), "\n") {
		if _, name, ok := strings.Cut(line, "  "); ok {
			names = append(names, name)
		}
	}
	return names
}

// checkVersion runs argv (a nomad version command) in the sandbox and
// checks that it names the release's version.
func checkVersion(ctx context.Context, argv []string, version string) error {
	out, err := sandboxed(ctx, argv)
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, out)
	}
	if want := "Nomad v" + version; !strings.Contains(out, want) {
		return fmt.Errorf("%s printed %q, want %q", strings.Join(argv, " "), strings.TrimSpace(out), want)
	}
	return nil
}
