package build

import (
	"fmt"
	"strings"
)

// SecurityGODEBUG are the GODEBUG settings whose value 0 switches off a
// limit or check the Go standard library added against an attack, each
// with the value that switches it on. A module whose go directive (or
// `godebug default=`) is older than the setting gets 0 by default, so
// every line's nomad sets them (go.mod godebug lines or //go:debug
// directives in package main) and every build is checked for them.
// (httpservecontentmaxranges, Go 1.26.11, is 1 at go1.20, a limit of one
// range, not 0; the TLS and x509 settings keep their go1.20 values: Nomad
// sets its own TLS versions and cipher suites, tls_min_version and
// tls_cipher_suites.)
var SecurityGODEBUG = map[string]string{
	// net/http: the number of cookies parsed per request (Go 1.26,
	// backported to 1.25.2 and 1.24.8 against memory exhaustion).
	"httpcookiemaxnum": "3000",
	// net/url: the number of query parameters parsed (Go 1.26,
	// backported to 1.25.6 and 1.24.12 against memory exhaustion).
	"urlmaxqueryparams": "10000",
	// net/url: Parse rejects colons in the host outside the port.
	"urlstrictcolons": "1",
	// crypto/rsa: keys shorter than 1024 bits are refused.
	"rsa1024min": "1",
}

// CheckGODEBUG checks the DefaultGODEBUG value of a binary's build
// information (comma-separated key=value pairs, as `go version -m` prints
// it) and returns an error naming every SecurityGODEBUG setting at 0.
func CheckGODEBUG(defaults string) error {
	var off []string
	for _, kv := range strings.Split(defaults, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := SecurityGODEBUG[k]; ok && v == "0" {
			off = append(off, k+"=0")
		}
	}
	if len(off) > 0 {
		return fmt.Errorf("DefaultGODEBUG switches off Go's security limits: %s (set them in go.mod's godebug block or in //go:debug directives of package main)", strings.Join(off, ", "))
	}
	return nil
}
