// Package metadata parses and lints the per-patch metadata that the series
// carries as commit-message trailers, a subset of Debian's DEP-3:
//
//	Upstream-Status: pending | submitted <url> | applied <version> | superseded <version> <url> | inappropriate <reason>
//	Origin: <where the change comes from>
//	Bug: <url of an upstream issue>   (optional, repeatable)
//	Release-Note: improvement | bug | …  (optional; the .changelog entry type, default improvement)
//
// and the series trailers Depends-On, Ref and Changes-Test (see trailers.go).
//
// applied means upstream carries the patch, so a rebase onto that version
// drops it. superseded means upstream made the same change in a form of its
// own (the pull request at the URL, released in the version), which does not
// cover all of the patch: a rebase onto that version keeps the patch and
// stops at its conflicts, where the part upstream lacks is kept by hand.
package metadata

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/mod/semver"
)

// MaxSubject is the longest subject an upstream-ready commit may have.
const MaxSubject = 72

// Status is the parsed Upstream-Status trailer.
type Status struct {
	// State is pending, submitted, applied, superseded or inappropriate.
	State string
	// Arg is the URL (submitted), version (applied), version and URL
	// (superseded) or reason (inappropriate).
	Arg string
}

// Version returns the upstream version an applied or superseded status
// names, or "".
func (s Status) Version() string {
	switch s.State {
	case "applied":
		return s.Arg
	case "superseded":
		v, _, _ := strings.Cut(s.Arg, " ")
		return v
	}
	return ""
}

func (s Status) String() string {
	if s.Arg == "" {
		return s.State
	}
	return s.State + " " + s.Arg
}

// Trailer is one Key: Value line.
type Trailer struct{ Key, Value string }

// Patch is the metadata of one patch.
type Patch struct {
	Subject  string
	Body     string
	Trailers []Trailer
}

// Values returns every value of key, case-insensitively.
func (p *Patch) Values(key string) []string {
	var vs []string
	for _, t := range p.Trailers {
		if strings.EqualFold(t.Key, key) {
			vs = append(vs, t.Value)
		}
	}
	return vs
}

var trailerRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9-]*):\s*(.*)$`)

// Parse reads the metadata of a patch file produced by git format-patch.
func Parse(data []byte) (*Patch, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	var (
		p         Patch
		inHeader  = true
		inSubject bool
		body      []string
	)
	for sc.Scan() {
		line := sc.Text()
		if inHeader {
			switch {
			case line == "":
				inHeader = false
			case inSubject && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")):
				p.Subject += line
			case strings.HasPrefix(line, "Subject: "):
				p.Subject = strings.TrimPrefix(line, "Subject: ")
				inSubject = true
			default:
				inSubject = false
			}
			continue
		}
		if line == "---" || strings.HasPrefix(line, "diff --git ") {
			break
		}
		body = append(body, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if inHeader {
		return nil, fmt.Errorf("not a patch produced by git format-patch: no end of header")
	}
	p.Subject = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.Subject), "[PATCH]"))
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
		body = body[:len(body)-1]
	}
	// Trailers are the last paragraph, if every line of it is Key: Value.
	start := len(body)
	for start > 0 && strings.TrimSpace(body[start-1]) != "" {
		start--
	}
	var trailers []Trailer
	for _, line := range body[start:] {
		m := trailerRE.FindStringSubmatch(line)
		if m == nil {
			trailers = nil
			start = len(body)
			break
		}
		trailers = append(trailers, Trailer{m[1], strings.TrimSpace(m[2])})
	}
	p.Trailers = trailers
	p.Body = strings.TrimSpace(strings.Join(body[:start], "\n"))
	return &p, nil
}

// Status returns the parsed Upstream-Status trailer.
func (p *Patch) Status() (Status, error) {
	vs := p.Values("Upstream-Status")
	switch len(vs) {
	case 0:
		return Status{}, fmt.Errorf("missing Upstream-Status trailer (add e.g. `Upstream-Status: pending` to the commit message)")
	case 1:
	default:
		return Status{}, fmt.Errorf("Upstream-Status appears %d times; keep one", len(vs))
	}
	return ParseStatus(vs[0])
}

// ParseStatus parses the value of an Upstream-Status trailer.
func ParseStatus(v string) (Status, error) {
	state, arg, _ := strings.Cut(strings.TrimSpace(v), " ")
	s := Status{State: state, Arg: strings.TrimSpace(arg)}
	switch s.State {
	case "pending":
		if s.Arg != "" {
			return s, fmt.Errorf("Upstream-Status %q: pending takes no argument", v)
		}
	case "submitted":
		if err := checkURL(s.Arg); err != nil {
			return s, fmt.Errorf("Upstream-Status %q: submitted needs the pull request URL: %v", v, err)
		}
	case "applied":
		if !semver.IsValid(s.Arg) {
			return s, fmt.Errorf("Upstream-Status %q: applied needs the upstream version that carries it, such as v1.5.6", v)
		}
	case "superseded":
		v, u, _ := strings.Cut(s.Arg, " ")
		if !semver.IsValid(v) {
			return s, fmt.Errorf("Upstream-Status %q: superseded needs the upstream version that carries upstream's form of the change, such as v1.5.6, then its pull request URL", v)
		}
		if err := checkURL(strings.TrimSpace(u)); err != nil {
			return s, fmt.Errorf("Upstream-Status %q: superseded needs the URL of upstream's pull request after the version: %v", v, err)
		}
	case "inappropriate":
		if s.Arg == "" {
			return s, fmt.Errorf("Upstream-Status %q: inappropriate needs a reason", v)
		}
	default:
		return s, fmt.Errorf("Upstream-Status %q: want pending, submitted <url>, applied <version>, superseded <version> <url> or inappropriate <reason>", v)
	}
	return s, nil
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q is not an https URL", s)
	}
	return nil
}

// Lint returns every problem with the patch's metadata.
func (p *Patch) Lint() []error {
	var errs []error
	if p.Subject == "" {
		errs = append(errs, fmt.Errorf("empty subject"))
	}
	if n := len([]rune(p.Subject)); n > MaxSubject {
		errs = append(errs, fmt.Errorf("subject is %d characters; upstream wants at most %d", n, MaxSubject))
	}
	if p.Body == "" {
		errs = append(errs, fmt.Errorf("empty commit message body: explain why and what for upstream reviewers"))
	}
	if _, err := p.Status(); err != nil {
		errs = append(errs, err)
	}
	switch origins := p.Values("Origin"); len(origins) {
	case 0:
		errs = append(errs, fmt.Errorf("missing Origin trailer (e.g. `Origin: nomad-client-fork`)"))
	case 1:
		if origins[0] == "" {
			errs = append(errs, fmt.Errorf("empty Origin trailer"))
		}
	default:
		errs = append(errs, fmt.Errorf("Origin appears %d times; keep one", len(origins)))
	}
	if _, err := p.ReleaseNote(); err != nil {
		errs = append(errs, err)
	}
	for _, b := range p.Values("Bug") {
		if err := checkURL(b); err != nil {
			errs = append(errs, fmt.Errorf("Bug: %v", err))
		}
	}
	errs = append(errs, p.lintTrailers()...)
	return errs
}

// ReleaseNotes are the changelog entry types upstream Nomad uses in
// .changelog/<id>.txt files.
var ReleaseNotes = []string{"improvement", "bug", "feature", "breaking-change", "security", "deprecation"}

// ReleaseNote returns the type of the patch's changelog entry: the
// Release-Note trailer, or improvement.
func (p *Patch) ReleaseNote() (string, error) {
	vs := p.Values("Release-Note")
	if len(vs) == 0 {
		return "improvement", nil
	}
	for _, k := range ReleaseNotes {
		if vs[0] == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("Release-Note %q: want one of %s", vs[0], strings.Join(ReleaseNotes, ", "))
}
