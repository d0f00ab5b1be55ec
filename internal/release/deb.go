package release

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
)

// LayoutDir is where upstream's tree keeps its Linux package layout: the
// files under package/ go to the same paths on the system, and the
// maintainer scripts preinst, postinst and postrm.
const LayoutDir = ".release/linux"

// The package's fields, as upstream's .github/workflows/build.yml gives
// them to its packaging action (hashicorp/actions-packaging-linux, nfpm);
// the maintainer and vendor name the fork, which builds it.
const (
	PackageName = "nomad"
	// DebRelease is the Debian revision: upstream's packages are
	// <version>-1, so the fork's are <version>+fork.N-1.
	DebRelease  = "1"
	Description = "Nomad is an easy-to-use, flexible, and performant workload orchestrator that can deploy a mix of microservice, batch, containerized, and non-containerized applications.\n" +
		"This is nomad-client-fork's build: upstream Nomad with the fork's client patches (RELEASE.md lists them)."
	Maintainer = "nomad-client-fork"
	Vendor     = "nomad-client-fork"
	Homepage   = "https://github.com/hashicorp/nomad"
	License    = "MPL-2.0"
	// Section is nfpm's customary section (upstream's action sets none).
	Section = "default"
)

// Depends is what the package depends on (upstream's deb_depends).
var Depends = []string{"openssl"}

// BinPath is where the package puts the binary, as upstream's.
const BinPath = "/usr/bin/nomad"

// Package describes one .deb.
type Package struct {
	// Version is the release version, such as 1.5.3+fork.1.
	Version string
	// Arch is the GOARCH, which is also Debian's name for amd64 and arm64.
	Arch string
	// Binary is the nomad binary.
	Binary string
	// Layout is the tree's LayoutDir.
	Layout string
	// MTime is every file's time and the archives' time.
	MTime time.Time
}

// DebVersion is the Debian version of a release version: 1.5.3+fork.1-1,
// which sorts after upstream's 1.5.3-1 and before its 1.5.4-1.
func DebVersion(version string) string { return version + "-" + DebRelease }

// DebName is the conventional file name of the package.
func DebName(version, arch string) string {
	return fmt.Sprintf("%s_%s_%s.deb", PackageName, DebVersion(version), arch)
}

// contents lists the package's files: the binary, then every file of the
// layout's package/ tree at the same path on the system, the ones under
// /etc as configuration files that dpkg keeps when an operator changed
// them. Owners are root and times p.MTime.
func (p Package) contents() (files.Contents, error) {
	fi := func(mode fs.FileMode) *files.ContentFileInfo {
		return &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: p.MTime}
	}
	cs := files.Contents{{Source: p.Binary, Destination: BinPath, FileInfo: fi(0o755)}}
	root := filepath.Join(p.Layout, "package")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		dst := "/" + filepath.ToSlash(rel)
		c := &files.Content{Source: path, Destination: dst, FileInfo: fi(0o644)}
		if strings.HasPrefix(dst, "/etc/") {
			c.Type = files.TypeConfigNoReplace
		}
		cs = append(cs, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the package layout: %w", err)
	}
	return cs, nil
}

// info is the nfpm description of the package.
func (p Package) info() (*nfpm.Info, error) {
	cs, err := p.contents()
	if err != nil {
		return nil, err
	}
	script := func(name string) (string, error) {
		path := filepath.Join(p.Layout, name)
		if _, err := os.Stat(path); err != nil {
			return "", fmt.Errorf("the package layout has no %s script: %w", name, err)
		}
		return path, nil
	}
	var scripts nfpm.Scripts
	for _, s := range []struct {
		name string
		to   *string
	}{{"preinst", &scripts.PreInstall}, {"postinst", &scripts.PostInstall}, {"postrm", &scripts.PostRemove}} {
		if *s.to, err = script(s.name); err != nil {
			return nil, err
		}
	}
	info := &nfpm.Info{
		Name:        PackageName,
		Arch:        p.Arch,
		Platform:    "linux",
		Version:     p.Version,
		Release:     DebRelease,
		Section:     Section,
		Description: Description,
		Maintainer:  Maintainer,
		Vendor:      Vendor,
		Homepage:    Homepage,
		License:     License,
		MTime:       p.MTime,
		Overridables: nfpm.Overridables{
			Depends:  Depends,
			Contents: cs,
			Scripts:  scripts,
		},
	}
	return nfpm.WithDefaults(info), nil
}

// writeDeb writes the package into dir and returns its file name.
func writeDeb(dir string, p Package) (name string, err error) {
	info, err := p.info()
	if err != nil {
		return "", err
	}
	if err := nfpm.PrepareForPackager(info, "deb"); err != nil {
		return "", fmt.Errorf("preparing the %s package: %w", p.Arch, err)
	}
	name = DebName(p.Version, p.Arch)
	if conv := deb.Default.ConventionalFileName(info); conv != name {
		return "", fmt.Errorf("package file name %s, want %s: nfpm parsed the version %q differently", conv, name, p.Version)
	}
	out, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return "", err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	if err := deb.Default.Package(info, out); err != nil {
		return "", fmt.Errorf("packaging %s: %w", name, err)
	}
	return name, nil
}
