// Package vulns scans a Go work tree for known vulnerabilities with a
// pinned govulncheck against an offline database built from a pinned
// golang.org/x/vulndb, compares the reachable findings with the line's
// baseline (the gate) and writes the line's security document.
package vulns

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Level is how far a finding reaches into the scanned code.
type Level int

const (
	// LevelModule: a required module is vulnerable, but no vulnerable
	// package of it is imported.
	LevelModule Level = iota + 1
	// LevelPackage: a vulnerable package is imported, but no vulnerable
	// symbol is called.
	LevelPackage
	// LevelSymbol: a vulnerable symbol is reachable from the scanned code.
	LevelSymbol
)

func (l Level) String() string {
	switch l {
	case LevelModule:
		return "module"
	case LevelPackage:
		return "package"
	case LevelSymbol:
		return "symbol"
	}
	return "unknown"
}

// Reachability describes the level for people.
func (l Level) Reachability() string {
	switch l {
	case LevelSymbol:
		return "reachable"
	case LevelPackage:
		return "not reachable: package imported, vulnerable symbols not called"
	case LevelModule:
		return "not reachable: module required, vulnerable packages not imported"
	}
	return "unknown"
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// StdlibModule is the module govulncheck names the standard library.
const StdlibModule = "stdlib"

// Frame is one call of a trace: pkg.Func or pkg.Recv.Func at a position.
type Frame struct {
	Module   string `json:"module"`
	Version  string `json:"version,omitempty"`
	Package  string `json:"package,omitempty"`
	Function string `json:"function,omitempty"`
	Receiver string `json:"receiver,omitempty"`
	Position *struct {
		Filename string `json:"filename,omitempty"`
		Line     int    `json:"line"`
	} `json:"position,omitempty"`
}

// Name is the frame's symbol: pkg.Func, pkg.Recv.Func, or the package or
// module it is.
func (f Frame) Name() string {
	switch {
	case f.Function != "" && f.Receiver != "":
		return fmt.Sprintf("%s.%s.%s", f.Package, strings.TrimPrefix(f.Receiver, "*"), f.Function)
	case f.Function != "":
		return f.Package + "." + f.Function
	case f.Package != "":
		return f.Package
	}
	return f.Module
}

// Finding is one vulnerability (OSV entry) in one module of the scanned
// code, at the deepest level govulncheck found it.
type Finding struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Module  string   `json:"module"`
	// Found is the module's version in the scanned code (the Go version
	// for the standard library).
	Found string `json:"found"`
	// Fixed is the lowest version that fixes it; empty if none does.
	Fixed string `json:"fixed,omitempty"`
	Level Level  `json:"level"`
	// Symbols are the vulnerable symbols reached (LevelSymbol only).
	Symbols []string `json:"symbols,omitempty"`
	// Trace is one example trace, from the scanned code's entry point to
	// the vulnerable symbol (LevelSymbol only).
	Trace []string `json:"trace,omitempty"`
}

// Key identifies the finding in a baseline: the vulnerability and module.
func (f Finding) Key() Key { return Key{f.ID, f.Module} }

// Key is a vulnerability in a module.
type Key struct{ ID, Module string }

func (k Key) String() string { return k.ID + " in " + k.Module }

// CVEs returns the aliases that are CVE IDs, else all aliases.
func (f Finding) CVEs() []string {
	var out []string
	for _, a := range f.Aliases {
		if strings.HasPrefix(a, "CVE-") {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return f.Aliases
	}
	return out
}

// Report is the result of one scan.
type Report struct {
	Scanner   string    `json:"scanner"`
	DB        string    `json:"db"`
	GoVersion string    `json:"go_version"`
	Findings  []Finding `json:"findings"`
}

// Reachable returns the findings at LevelSymbol.
func (r *Report) Reachable() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Level == LevelSymbol {
			out = append(out, f)
		}
	}
	return out
}

// Count returns how many findings are at level l.
func (r *Report) Count(l Level) int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == l {
			n++
		}
	}
	return n
}

// message is one object of govulncheck's -json stream (protocol v1.0.0).
type message struct {
	Config *struct {
		ScannerName    string `json:"scanner_name"`
		ScannerVersion string `json:"scanner_version"`
		DB             string `json:"db"`
		GoVersion      string `json:"go_version"`
	} `json:"config"`
	OSV *struct {
		ID       string   `json:"id"`
		Aliases  []string `json:"aliases"`
		Summary  string   `json:"summary"`
		Withdraw *string  `json:"withdrawn"`
	} `json:"osv"`
	Finding *struct {
		OSV          string   `json:"osv"`
		FixedVersion string   `json:"fixed_version"`
		Trace        []*Frame `json:"trace"`
	} `json:"finding"`
}

// ParseJSON reads govulncheck's -json output into a report: one finding
// per vulnerability and module, at the deepest level reported, sorted by
// module and ID.
func ParseJSON(r io.Reader) (*Report, error) {
	dec := json.NewDecoder(bufio.NewReader(r))
	rep := &Report{}
	type osvInfo struct {
		aliases []string
		summary string
	}
	osvs := map[string]osvInfo{}
	byKey := map[Key]*Finding{}
	for {
		var m message
		err := dec.Decode(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading govulncheck's JSON output: %w", err)
		}
		switch {
		case m.Config != nil:
			rep.Scanner = strings.TrimSpace(m.Config.ScannerName + " " + m.Config.ScannerVersion)
			rep.DB = m.Config.DB
			rep.GoVersion = m.Config.GoVersion
		case m.OSV != nil:
			osvs[m.OSV.ID] = osvInfo{m.OSV.Aliases, m.OSV.Summary}
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			fr := m.Finding.Trace[0]
			lvl := LevelModule
			switch {
			case fr.Function != "":
				lvl = LevelSymbol
			case fr.Package != "":
				lvl = LevelPackage
			}
			k := Key{m.Finding.OSV, fr.Module}
			f := byKey[k]
			if f == nil {
				f = &Finding{ID: k.ID, Module: k.Module, Found: fr.Version}
				byKey[k] = f
			}
			if f.Fixed == "" {
				f.Fixed = m.Finding.FixedVersion
			}
			if lvl > f.Level {
				f.Level = lvl
			}
			if lvl == LevelSymbol {
				sym := fr.Name()
				if !contains(f.Symbols, sym) {
					f.Symbols = append(f.Symbols, sym)
				}
				if f.Trace == nil {
					for i := len(m.Finding.Trace) - 1; i >= 0; i-- {
						f.Trace = append(f.Trace, m.Finding.Trace[i].Name())
					}
				}
			}
		}
	}
	for _, f := range byKey {
		info := osvs[f.ID]
		f.Aliases, f.Summary = info.aliases, info.summary
		sort.Strings(f.Symbols)
		rep.Findings = append(rep.Findings, *f)
	}
	sort.Slice(rep.Findings, func(i, j int) bool {
		a, b := rep.Findings[i], rep.Findings[j]
		if a.Module != b.Module {
			return a.Module < b.Module
		}
		return a.ID < b.ID
	})
	return rep, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
