//go:build tools

// Package tools pins the vulnerability scanner and the vulnerability
// database nomadfork vulns uses: go.mod names their versions, go.sum their
// checksums, which the go command verifies on every download.
package tools

import (
	_ "golang.org/x/vuln/cmd/govulncheck"
	_ "golang.org/x/vulndb/cmd/indexdb"
)
