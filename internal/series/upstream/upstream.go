// Package upstream downloads the pinned upstream modules with the go command
// and verifies them against the pin.
package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

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
}

// download is the subset of `go mod download -json` output the tool uses.
type download struct {
	Path    string
	Version string
	Error   string
	Info    string
	Dir     string
	Sum     string
	Origin  *struct{ Hash string }
}

// Download downloads m with `go mod download` and returns its location and
// metadata without verifying it.
func Download(ctx context.Context, m pin.Module) (*Module, error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", m.String())
	// Run outside any module so that no go.mod influences the download.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on", "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	var d download
	if err := json.Unmarshal(stdout.Bytes(), &d); err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("downloading %s: %v: %s", m, runErr, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("downloading %s: parsing go output: %w", m, err)
	}
	if d.Error != "" {
		return nil, fmt.Errorf("downloading %s: %s (the Go module proxy must serve this exact version; check the pin)", m, d.Error)
	}
	if runErr != nil {
		return nil, fmt.Errorf("downloading %s: %v: %s", m, runErr, strings.TrimSpace(stderr.String()))
	}
	out := &Module{Module: m, Source: d.Dir}
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
	return mods, nil
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
