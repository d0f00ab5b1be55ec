package release

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// elfMachine is the ELF machine of each GOARCH a release holds.
var elfMachine = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}

// CheckELF checks that the file at path is a Linux ELF executable for the
// GOARCH arch.
func CheckELF(path, arch string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF file: %w", path, err)
	}
	defer f.Close()
	want, ok := elfMachine[arch]
	if !ok {
		return fmt.Errorf("no ELF machine known for %s", arch)
	}
	if f.Machine != want || f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("%s is a %s %s, want a %s executable", path, f.Machine, f.Type, want)
	}
	return nil
}

// CheckZip checks that the zip at path holds exactly one file, an
// executable named nomad, and extracts it to bin.
func CheckZip(path, bin string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if len(names) != 1 || names[0] != "nomad" {
		return fmt.Errorf("%s holds %q, want exactly [\"nomad\"] (upstream's layout)", filepath.Base(path), names)
	}
	f := zr.File[0]
	if f.Mode() != 0o755 {
		return fmt.Errorf("%s: nomad has mode %v, want -rwxr-xr-x", filepath.Base(path), f.Mode())
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return fmt.Errorf("extracting nomad from %s: %w", filepath.Base(path), err)
	}
	return out.Close()
}

// DebEntry is one line of `dpkg-deb -c`.
type DebEntry struct {
	Mode, Owner, Path string
}

// WantDeb is what a release's package must hold: the binary at BinPath and
// every file of the layout's package/ tree, all owned by root, the files
// under /etc as conffiles, and the three maintainer scripts.
func WantDeb(layout string) (paths, conffiles []string, err error) {
	p := Package{Layout: layout, Binary: "nomad"}
	cs, err := p.contents()
	if err != nil {
		return nil, nil, err
	}
	for _, c := range cs {
		paths = append(paths, "."+c.Destination)
		if strings.HasPrefix(c.Destination, "/etc/") {
			conffiles = append(conffiles, c.Destination)
		}
	}
	slices.Sort(paths)
	slices.Sort(conffiles)
	return paths, conffiles, nil
}

// CheckDeb checks the package at path with dpkg-deb: its control fields
// (name, version, architecture, dependencies), its file list and owners
// against upstream's layout in layout, its conffiles and scripts.
func CheckDeb(ctx context.Context, path, version, arch, layout string) error {
	name := filepath.Base(path)
	if want := DebName(version, arch); name != want {
		return fmt.Errorf("package file %s, want %s", name, want)
	}
	fields := map[string]string{
		"Package":      PackageName,
		"Version":      DebVersion(version),
		"Architecture": arch,
		"Depends":      strings.Join(Depends, ", "),
		"Maintainer":   Maintainer,
		"Homepage":     Homepage,
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		out, err := dpkgDeb(ctx, "-f", path, k)
		if err != nil {
			return err
		}
		if got := strings.TrimSpace(out); got != fields[k] {
			return fmt.Errorf("%s: control field %s is %q, want %q", name, k, got, fields[k])
		}
	}
	info, err := dpkgDeb(ctx, "-I", path)
	if err != nil {
		return err
	}
	for _, member := range []string{"control", "md5sums", "conffiles", "preinst", "postinst", "postrm"} {
		if !strings.Contains(info, " "+member+"\n") && !strings.Contains(info, " "+member+" ") {
			return fmt.Errorf("%s: dpkg-deb -I lists no %s member:\n%s", name, member, info)
		}
	}
	wantPaths, wantConf, err := WantDeb(layout)
	if err != nil {
		return err
	}
	conf, err := dpkgDeb(ctx, "-I", path, "conffiles")
	if err != nil {
		return err
	}
	gotConf := strings.Fields(conf)
	slices.Sort(gotConf)
	if !slices.Equal(gotConf, wantConf) {
		return fmt.Errorf("%s: conffiles %q, want %q", name, gotConf, wantConf)
	}
	list, err := dpkgDeb(ctx, "-c", path)
	if err != nil {
		return err
	}
	entries, err := parseDebList(list)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var gotPaths []string
	for _, e := range entries {
		if e.Owner != "root/root" {
			return fmt.Errorf("%s: %s is owned by %s, want root/root", name, e.Path, e.Owner)
		}
		if strings.HasPrefix(e.Mode, "-") {
			gotPaths = append(gotPaths, e.Path)
		}
		if e.Path == "."+BinPath && e.Mode != "-rwxr-xr-x" {
			return fmt.Errorf("%s: %s has mode %s, want -rwxr-xr-x", name, e.Path, e.Mode)
		}
	}
	slices.Sort(gotPaths)
	if !slices.Equal(gotPaths, wantPaths) {
		return fmt.Errorf("%s: files %q, want %q (upstream's layout)", name, gotPaths, wantPaths)
	}
	return nil
}

// parseDebList parses `dpkg-deb -c` (tar tv) lines: mode, owner/group,
// size, date, time, path.
func parseDebList(s string) ([]DebEntry, error) {
	var es []DebEntry
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			return nil, fmt.Errorf("unexpected dpkg-deb -c line %q", sc.Text())
		}
		es = append(es, DebEntry{Mode: f[0], Owner: f[1], Path: f[5]})
	}
	return es, sc.Err()
}

func dpkgDeb(ctx context.Context, args ...string) (string, error) {
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		return "", fmt.Errorf("checking the packages needs dpkg-deb (apt-get install dpkg): %w", err)
	}
	cmd := exec.CommandContext(ctx, "dpkg-deb", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("dpkg-deb %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Emulator returns the command line prefix that runs a binary of arch on
// this machine: none for the host's, qemu-user for another, or ok false
// when qemu-user is not installed.
func Emulator(arch string) (prefix []string, ok bool) {
	if arch == build.Host().Arch {
		return nil, true
	}
	qemu := map[string]string{"arm64": "qemu-aarch64", "amd64": "qemu-x86_64"}[arch]
	triplet := map[string]string{"arm64": "aarch64-linux-gnu", "amd64": "x86_64-linux-gnu"}[arch]
	path, err := exec.LookPath(qemu)
	if err != nil {
		if path, err = exec.LookPath(qemu + "-static"); err != nil {
			return nil, false
		}
	}
	// The cgo binary needs the target's C library: Debian's cross
	// toolchain puts it under /usr/<triplet>.
	return []string{path, "-L", "/usr/" + triplet}, true
}
