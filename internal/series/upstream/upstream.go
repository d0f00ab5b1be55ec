// Package upstream downloads the pinned upstream modules with the go command
// and verifies them against the pin.
package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/pin"
)

// Module is a downloaded and verified module.
type Module struct {
	pin.Module
	// Source is the module's extracted, read-only directory in the module
	// cache.
	Source string
	// Time is the commit time of the version, from the proxy's .info file.
	Time time.Time
	// Commit is the VCS revision of the version, when the proxy tells it.
	Commit string
	// GoModSum is the h1: checksum of the version's go.mod.
	GoModSum string
}

// download is the subset of `go mod download -json` output the tool uses.
type download struct {
	Path     string
	Version  string
	Error    string
	Info     string
	Dir      string
	Sum      string
	GoModSum string
	Origin   *struct{ Hash string }
}

// Download downloads m with `go mod download` and returns its location and
// metadata without verifying it.
func Download(ctx context.Context, m pin.Module) (*Module, error) {
	// Run outside any module so that no go.mod influences the download.
	goCmd := gocmd.Cmd{Dir: os.TempDir(), Env: append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on", "GOWORK=off")}
	stdout, runErr := goCmd.Output(ctx, "mod", "download", "-json", m.String())
	var d download
	if err := json.Unmarshal(stdout, &d); err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("downloading %s: %w", m, runErr)
		}
		return nil, fmt.Errorf("downloading %s: parsing go output: %w", m, err)
	}
	if d.Error != "" {
		return nil, fmt.Errorf("downloading %s: %s (the Go module proxy serves no such version: name a released one, in the line's pin or in the flag that gave %s)", m, d.Error, m.Version)
	}
	if runErr != nil {
		return nil, fmt.Errorf("downloading %s: %w", m, runErr)
	}
	out := &Module{Module: m, Source: d.Dir, GoModSum: d.GoModSum}
	out.Sum = d.Sum
	if d.Origin != nil {
		out.Commit = d.Origin.Hash
	}
	if d.Info != "" {
		data, err := os.ReadFile(d.Info)
		if err != nil {
			return nil, fmt.Errorf("downloading %s: %w", m, err)
		}
		var info struct {
			Time   time.Time
			Origin *struct{ Hash string }
		}
		if err := json.Unmarshal(data, &info); err != nil {
			return nil, fmt.Errorf("downloading %s: parsing %s: %w", m, d.Info, err)
		}
		out.Time = info.Time.UTC()
		if out.Commit == "" && info.Origin != nil {
			out.Commit = info.Origin.Hash
		}
	}
	return out, nil
}

// ErrChecksum is wrapped by errors for modules whose content does not match
// the pin.
var ErrChecksum = errors.New("checksum mismatch")

// Fetch downloads every module of p and verifies each against the pin's
// checksum, both as the go command reports it and by hashing the extracted
// files the work tree is made of. It writes progress to w.
func Fetch(ctx context.Context, p *pin.Pin, w io.Writer) ([]*Module, error) {
	var mods []*Module
	for _, want := range p.Modules() {
		fmt.Fprintf(w, "downloading %s\n", want)
		got, err := Download(ctx, want)
		if err != nil {
			return nil, err
		}
		if err := verify(want, got); err != nil {
			return nil, err
		}
		got.Sum = want.Sum
		mods = append(mods, got)
	}
	for _, n := range mods[1:] {
		sums, err := RequiredSums(ctx, mods[0], n)
		if err != nil {
			return nil, err
		}
		if strings.Join(sums, "\n") != strings.Join(n.GoSum, "\n") {
			return nil, fmt.Errorf("%s: the go.sum lines its requirements need are\n\t%s\nbut the pin records\n\t%s\nfix the pin (a rebase onto the version writes them)",
				n.Module, strings.Join(sums, "\n\t"), strings.Join(n.GoSum, "\n\t"))
		}
	}
	return mods, nil
}

// RequiredSums returns the go.sum lines that nested's requirements need
// and main's go.sum lacks: for every module nested requires at a newer
// version than main does, the lines of that version (the go command selects
// it, since main replaces nested with its directory). Each comes from
// `go mod download`, which verifies it against the checksum database.
func RequiredSums(ctx context.Context, main, nested *Module) ([]string, error) {
	mainMod, err := readModFile(filepath.Join(main.Source, "go.mod"))
	if err != nil {
		return nil, err
	}
	nestedMod, err := readModFile(filepath.Join(nested.Source, "go.mod"))
	if err != nil {
		return nil, err
	}
	sumData, err := os.ReadFile(filepath.Join(main.Source, "go.sum"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(sumData), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			have[f[0]+" "+f[1]] = true
		}
	}
	mainReq := map[string]string{}
	for _, r := range mainMod.Require {
		mainReq[r.Mod.Path] = r.Mod.Version
	}
	var lines []string
	for _, r := range nestedMod.Require {
		mv, ok := mainReq[r.Mod.Path]
		if !ok || semver.Compare(r.Mod.Version, mv) <= 0 {
			continue
		}
		if have[r.Mod.Path+" "+r.Mod.Version] && have[r.Mod.Path+" "+r.Mod.Version+"/go.mod"] {
			continue
		}
		d, err := Download(ctx, pin.Module{Path: r.Mod.Path, Version: r.Mod.Version})
		if err != nil {
			return nil, fmt.Errorf("%s requires %s: %w", nested.Module, r.Mod, err)
		}
		if !have[r.Mod.Path+" "+r.Mod.Version] {
			lines = append(lines, fmt.Sprintf("%s %s %s", r.Mod.Path, r.Mod.Version, d.Sum))
		}
		if !have[r.Mod.Path+" "+r.Mod.Version+"/go.mod"] {
			lines = append(lines, fmt.Sprintf("%s %s/go.mod %s", r.Mod.Path, r.Mod.Version, d.GoModSum))
		}
	}
	sort.Strings(lines)
	return lines, nil
}

func readModFile(file string) (*modfile.File, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	f, err := modfile.ParseLax(file, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", file, err)
	}
	return f, nil
}

func verify(want pin.Module, got *Module) error {
	if got.Sum != want.Sum {
		return fmt.Errorf("%s: %w: the pin says %s, the go command verified %s; "+
			"if the pin is wrong, correct it (never pin an unverified sum)", want, ErrChecksum, want.Sum, got.Sum)
	}
	sum, err := dirhash.HashDir(got.Source, want.String(), dirhash.Hash1)
	if err != nil {
		return fmt.Errorf("%s: hashing %s: %w", want, got.Source, err)
	}
	if sum != want.Sum {
		return fmt.Errorf("%s: %w: the extracted files in %s hash to %s, not %s; "+
			"the module cache is corrupt: run `go clean -modcache` and retry", want, ErrChecksum, got.Source, sum, want.Sum)
	}
	return nil
}
