package vulns

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// ScanOptions says what to scan with what.
type ScanOptions struct {
	Govulncheck string
	// DB is the offline database's directory.
	DB string
	// Dir is the module to scan; Patterns its packages (default ./...).
	Dir      string
	Patterns []string
	// Toolchain is the Go release the scan loads the code with (GOTOOLCHAIN;
	// empty: the installed one). The standard library's findings are its.
	Toolchain string
	// Env is added to the scan's environment.
	Env []string
	// Raw receives govulncheck's JSON stream as it is; may be nil.
	Raw io.Writer
}

// Scan runs govulncheck at symbol level and returns its report. It fails
// when the scan did not use the toolchain asked for.
func Scan(ctx context.Context, o ScanOptions) (*Report, error) {
	pats := o.Patterns
	if len(pats) == 0 {
		pats = []string{"./..."}
	}
	args := append([]string{"-db", "file://" + o.DB, "-json"}, pats...)
	cmd := exec.CommandContext(ctx, o.Govulncheck, args...)
	cmd.Dir = o.Dir
	cmd.Env = append(os.Environ(), o.Env...)
	if o.Toolchain != "" {
		cmd.Env = append(cmd.Env, "GOTOOLCHAIN="+o.Toolchain)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		hint := ""
		if o.Toolchain != "" && strings.Contains(stderr.String(), "toolchain") {
			hint = fmt.Sprintf(" (the scan needs the Go toolchain %s: `GOTOOLCHAIN=%s go version` downloads it through the module proxy)", o.Toolchain, o.Toolchain)
		}
		return nil, fmt.Errorf("govulncheck in %s: %w: %s%s", o.Dir, err, lastLines(stderr.Bytes(), 15), hint)
	}
	if o.Raw != nil {
		if _, err := o.Raw.Write(stdout.Bytes()); err != nil {
			return nil, err
		}
	}
	rep, err := ParseJSON(&stdout)
	if err != nil {
		return nil, err
	}
	if o.Toolchain != "" && rep.GoVersion != o.Toolchain {
		return nil, fmt.Errorf("govulncheck scanned with %s, not %s: set GOTOOLCHAIN=%s reachable (`GOTOOLCHAIN=%s go version` downloads it)", rep.GoVersion, o.Toolchain, o.Toolchain, o.Toolchain)
	}
	return rep, nil
}
