package vulns

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/semver"
)

// Advisory is an OSV entry of the database about one module.
type Advisory struct {
	ID      string   `json:"id"`
	Aliases []string `json:"aliases,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Module  string   `json:"module"`
	// Fixed is the lowest fixed version above the queried one; empty if
	// none is known.
	Fixed string `json:"fixed,omitempty"`
}

// osvEntry is the part of an OSV entry Advisories reads.
type osvEntry struct {
	ID        string   `json:"id"`
	Aliases   []string `json:"aliases"`
	Summary   string   `json:"summary"`
	Withdrawn *string  `json:"withdrawn"`
	Affected  []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []struct {
			Type   string `json:"type"`
			Events []struct {
				Introduced string `json:"introduced"`
				Fixed      string `json:"fixed"`
			} `json:"events"`
		} `json:"ranges"`
	} `json:"affected"`
}

// Advisories returns the entries of the database in dir (the v1 layout
// indexdb writes: index/modules.json, ID/<id>.json) that affect module at
// version: for the scanned module itself, which govulncheck does not
// report.
func Advisories(dir, module, version string) ([]Advisory, error) {
	data, err := os.ReadFile(filepath.Join(dir, "index", "modules.json"))
	if err != nil {
		return nil, fmt.Errorf("reading the vulnerability database's index: %w", err)
	}
	var mods []struct {
		Path  string `json:"path"`
		Vulns []struct {
			ID string `json:"id"`
		} `json:"vulns"`
	}
	if err := json.Unmarshal(data, &mods); err != nil {
		return nil, fmt.Errorf("reading the vulnerability database's index: %w", err)
	}
	seen := map[string]bool{}
	var out []Advisory
	for _, m := range mods {
		if m.Path != module {
			continue
		}
		for _, v := range m.Vulns {
			if seen[v.ID] {
				continue
			}
			seen[v.ID] = true
			a, ok, err := readAdvisory(filepath.Join(dir, "ID", v.ID+".json"), module, version)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, a)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func readAdvisory(name, module, version string) (Advisory, bool, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return Advisory{}, false, fmt.Errorf("reading the vulnerability database: %w", err)
	}
	var e osvEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return Advisory{}, false, fmt.Errorf("%s: %w", name, err)
	}
	if e.Withdrawn != nil {
		return Advisory{}, false, nil
	}
	a := Advisory{ID: e.ID, Aliases: e.Aliases, Summary: e.Summary, Module: module}
	affected := false
	for _, af := range e.Affected {
		if af.Package.Name != module {
			continue
		}
		for _, r := range af.Ranges {
			if r.Type != "SEMVER" {
				continue
			}
			// Events alternate introduced and fixed, in ascending order.
			open := ""
			for _, ev := range r.Events {
				switch {
				case ev.Introduced != "":
					open = "v" + ev.Introduced
					if ev.Introduced == "0" {
						open = "v0.0.0"
					}
				case ev.Fixed != "" && open != "":
					fixed := "v" + ev.Fixed
					if semver.Compare(version, open) >= 0 && semver.Compare(version, fixed) < 0 {
						affected = true
						if a.Fixed == "" || semver.Compare(fixed, "v"+a.Fixed) < 0 {
							a.Fixed = ev.Fixed
						}
					}
					open = ""
				}
			}
			if open != "" && semver.Compare(version, open) >= 0 {
				affected = true
			}
		}
	}
	return a, affected, nil
}
