package vulns

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/gocmd"
	"golang.org/x/mod/modfile"
)

// The modules tools/vulns/go.mod pins.
const (
	VulnModule   = "golang.org/x/vuln"
	VulndbModule = "golang.org/x/vulndb"
)

// Tools builds the pinned scanner and database. ModDir holds the go.mod
// and go.sum that pin them (their versions and checksums: the go command
// verifies every download against go.sum); Cache is where the builds are
// kept, keyed by version, so only the first run builds.
type Tools struct {
	ModDir string
	Cache  string
	// Log receives progress lines.
	Log io.Writer
}

// Pins are the versions tools/vulns/go.mod names.
type Pins struct {
	Vuln, Vulndb string
	// Toolchain is the go.mod's toolchain line: the Go release scans use
	// (GOTOOLCHAIN), so the standard library findings are those of the
	// release the fork's builds use.
	Toolchain string
}

// Prepared are the built tools.
type Prepared struct {
	Pins
	Govulncheck string
	Indexdb     string
	// DB is the offline vulnerability database (file:// URL's path).
	DB string
}

// ReadPins reads the pinned versions from ModDir's go.mod.
func (t Tools) ReadPins() (Pins, error) {
	name := filepath.Join(t.ModDir, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return Pins{}, err
	}
	f, err := modfile.Parse(name, data, nil)
	if err != nil {
		return Pins{}, err
	}
	var p Pins
	for _, r := range f.Require {
		switch r.Mod.Path {
		case VulnModule:
			p.Vuln = r.Mod.Version
		case VulndbModule:
			p.Vulndb = r.Mod.Version
		}
	}
	if f.Toolchain != nil {
		p.Toolchain = f.Toolchain.Name
	}
	if p.Vuln == "" || p.Vulndb == "" || p.Toolchain == "" {
		return Pins{}, fmt.Errorf("%s must require %s and %s and name a toolchain", name, VulnModule, VulndbModule)
	}
	return p, nil
}

// Prepare builds govulncheck and indexdb (once per go.sum) and the
// database (once per vulndb version).
func (t Tools) Prepare(ctx context.Context) (*Prepared, error) {
	pins, err := t.ReadPins()
	if err != nil {
		return nil, err
	}
	key, err := t.toolsKey()
	if err != nil {
		return nil, err
	}
	p := &Prepared{Pins: pins}
	bin := filepath.Join(t.Cache, "tools", key)
	p.Govulncheck = filepath.Join(bin, "govulncheck")
	p.Indexdb = filepath.Join(bin, "indexdb")
	if err := t.buildTools(ctx, bin); err != nil {
		return nil, err
	}
	p.DB = filepath.Join(t.Cache, "db", pins.Vulndb)
	if err := t.buildDB(ctx, p); err != nil {
		return nil, err
	}
	return p, nil
}

// BuildGovulncheck builds only the scanner (tests use their own database).
func (t Tools) BuildGovulncheck(ctx context.Context, dir string) (string, error) {
	out := filepath.Join(dir, "govulncheck")
	return out, t.goCmd(ctx, nil, "build", "-mod=readonly", "-o", out, VulnModule+"/cmd/govulncheck")
}

func (t Tools) toolsKey() (string, error) {
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(t.ModDir, f))
		if err != nil {
			return "", err
		}
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

func (t Tools) buildTools(ctx context.Context, bin string) error {
	if fileExists(filepath.Join(bin, "govulncheck")) && fileExists(filepath.Join(bin, "indexdb")) {
		return nil
	}
	fmt.Fprintf(t.Log, "==> building govulncheck and indexdb from %s (once)\n", t.ModDir)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return fmt.Errorf("building the vulnerability tools: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(bin), ".build-*")
	if err != nil {
		return fmt.Errorf("building the vulnerability tools: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := t.goCmd(ctx, nil, "build", "-mod=readonly", "-o", tmp+"/",
		VulnModule+"/cmd/govulncheck", VulndbModule+"/cmd/indexdb"); err != nil {
		return err
	}
	_ = os.RemoveAll(bin)
	return os.Rename(tmp, bin)
}

func (t Tools) buildDB(ctx context.Context, p *Prepared) error {
	if fileExists(filepath.Join(p.DB, "index", "modules.json")) {
		return nil
	}
	// go mod download verifies the zip against tools/vulns/go.sum.
	var out bytes.Buffer
	if err := t.goCmd(ctx, &out, "mod", "download", "-json", VulndbModule); err != nil {
		return err
	}
	var dl struct{ Dir, Sum, Error string }
	if err := json.Unmarshal(out.Bytes(), &dl); err != nil {
		return fmt.Errorf("go mod download %s: %w", VulndbModule, err)
	}
	if dl.Error != "" || dl.Dir == "" {
		return fmt.Errorf("go mod download %s: %s", VulndbModule, dl.Error)
	}
	fmt.Fprintf(t.Log, "==> building the vulnerability database from %s@%s (%s) into %s (once)\n", VulndbModule, p.Vulndb, dl.Sum, p.DB)
	if err := os.MkdirAll(filepath.Dir(p.DB), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(p.DB), ".build-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, "db")
	cmd := exec.CommandContext(ctx, p.Indexdb, "-vulns", filepath.Join(dl.Dir, "data", "osv"), "-out", db)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("indexdb: %w: %s", err, lastLines(msg, 10))
	}
	_ = os.RemoveAll(p.DB)
	return os.Rename(db, p.DB)
}

// goCmd runs the go command in ModDir with the installed toolchain and
// -mod=readonly, so go.sum verifies every module.
func (t Tools) goCmd(ctx context.Context, stdout io.Writer, args ...string) error {
	out, err := gocmd.Cmd{Dir: t.ModDir, Env: append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly")}.Output(ctx, args...)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w\n(the module proxy must be reachable for the first run)", err)
	}
	if stdout != nil {
		_, err = stdout.Write(out)
	}
	return err
}

func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && !st.IsDir()
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
