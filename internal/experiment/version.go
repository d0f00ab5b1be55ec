package experiment

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Version is what `nomad version` says of a binary.
type Version struct {
	// Line is the first line, "Nomad v1.5.3+fork.1": what reports show.
	Line string
	// Version (with metadata, no "v") and Revision are what the binary's
	// node attributes nomad.version and nomad.revision hold.
	Version, Revision string
}

// ParseVersion reads `nomad version`'s output: "Nomad v1.5.3+fork.1", then
// "BuildDate …" and "Revision <commit>" lines.
func ParseVersion(out []byte) (Version, error) {
	var v Version
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	v.Line = strings.TrimSpace(first)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) >= 2 && f[0] == "Nomad":
			v.Version = strings.TrimPrefix(f[1], "v")
		case len(f) >= 2 && f[0] == "Revision":
			v.Revision = f[1]
		}
	}
	if v.Version == "" {
		return v, fmt.Errorf("no version in %q", bytes.TrimSpace(out))
	}
	return v, nil
}

// ProbeVersion runs `nomad version` of the binary nomad. It runs the
// binary: call it inside the sandbox.
func ProbeVersion(ctx context.Context, nomad string) (Version, error) {
	out, err := exec.CommandContext(ctx, nomad, "version").Output()
	if err != nil {
		return Version{}, fmt.Errorf("%s version: %w", nomad, err)
	}
	return ParseVersion(out)
}
