package release

import (
	"fmt"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series/build"
)

// Notes returns RELEASE.md: what the release is built from and with, the
// line's patches with their Upstream-Status (read through the patches'
// metadata, so a patch without a valid status is an error) and security,
// the line's table of Nomad's security record (vulns.RecordTable; ""
// leaves the section out).
func Notes(upstream, version string, stamp build.Stamp, patches []series.Patch, security string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Nomad %s\n\n", version)
	fmt.Fprintf(&b, "nomad-client-fork's release of upstream Nomad %s (github.com/hashicorp/nomad, MPL-2.0) with the line's %d patch(es).\n\n", upstream, len(patches))
	fmt.Fprintf(&b, "- Work tree revision: %s, committed %s (the build date `nomad version` prints): upstream %s plus exactly the patches below, one commit each (the release verb refuses any other HEAD: its commits must re-export byte for byte as the line's patch files)\n", stamp.Revision, stamp.Date, upstream)
	fmt.Fprintf(&b, "- Built like upstream's official release: `-tags %s`, `CGO_ENABLED=1`, `-trimpath`, the version set with `-ldflags`\n", strings.Join(build.Release.Tags, ","))
	fmt.Fprintf(&b, "- Go toolchain: %s (GOTOOLCHAIN); linux/arm64 cross-built with Debian's gcc-aarch64-linux-gnu\n", build.Toolchain)
	fmt.Fprintf(&b, "- Debian packages: version %s, upstream's package layout (.release/linux), upgrade over the official `nomad` package and back (docs/release.md)\n\n", DebVersion(version))
	b.WriteString("## Patches\n\n| # | patch | Upstream-Status |\n|---|---|---|\n")
	for _, p := range patches {
		m, err := p.Metadata()
		if err != nil {
			return "", err
		}
		st, err := m.Status()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p.Name, err)
		}
		fmt.Fprintf(&b, "| %04d | %s | %s |\n", p.Number, strings.ReplaceAll(m.Subject, "|", `\|`), st)
	}
	if security != "" {
		b.WriteString("\n## Security\n\n")
		b.WriteString("What this binary is safe to run as: a Nomad **client** with the fixes below; as a **server**, only where\n")
		b.WriteString("every server-side entry below is fixed or not affected — otherwise run the servers on a fixed upstream\n")
		b.WriteString("release (docs/release.md). Every security fix Nomad published since 2023, with its status on this line\n")
		b.WriteString("(docs/security/record.tsv; \"fixed by\" from the patches' `Advisory:` trailers):\n\n")
		b.WriteString(security)
	}
	b.WriteString("\n`sha256sum -c SHA256SUMS` checks the files.\n")
	return b.String(), nil
}
