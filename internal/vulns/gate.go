package vulns

import (
	"fmt"
	"strings"
)

// GateInput is what the gate compares.
type GateInput struct {
	Report   *Report
	Baseline *Baseline
	// Advisories are the database's entries affecting the scanned module
	// itself (Advisories), which need a baseline entry each.
	Advisories []Advisory
	// Patches maps the series' patch numbers (0001) to their file names.
	Patches map[string]string
}

// Gate is the verdict: the gate passes when every slice is empty.
type Gate struct {
	// New are reachable findings with no baseline entry.
	New []Finding
	// StillFound are reachable findings the baseline says a patch fixes.
	StillFound []Finding
	// Stale are open or not-affected entries of dependencies that are no
	// longer reachable, and entries of the scanned module that no advisory
	// affecting it matches: remove them, the baseline only shrinks.
	Stale []Entry
	// Unrecorded are advisories of the scanned module without an entry.
	Unrecorded []Advisory
	// BadPatch are fixed:NNNN entries naming no patch of the series.
	BadPatch []Entry
}

// OK reports whether the gate passes.
func (g *Gate) OK() bool {
	return len(g.New)+len(g.StillFound)+len(g.Stale)+len(g.Unrecorded)+len(g.BadPatch) == 0
}

// Check compares the scan with the baseline.
func Check(in GateInput) *Gate {
	g := &Gate{}
	reach := map[Key]bool{}
	for _, f := range in.Report.Reachable() {
		reach[f.Key()] = true
		e := in.Baseline.Find(f.Key())
		switch {
		case e == nil:
			g.New = append(g.New, f)
		case e.Status == StatusFixed:
			g.StillFound = append(g.StillFound, f)
		}
	}
	adv := map[Key]bool{}
	for _, a := range in.Advisories {
		k := Key{a.ID, a.Module}
		adv[k] = true
		if in.Baseline.Find(k) == nil {
			g.Unrecorded = append(g.Unrecorded, a)
		}
	}
	mainModule := map[string]bool{}
	for _, a := range in.Advisories {
		mainModule[a.Module] = true
	}
	for _, e := range in.Baseline.Entries {
		if e.Status == StatusFixed {
			if _, ok := in.Patches[e.Patch]; !ok {
				g.BadPatch = append(g.BadPatch, e)
			}
			continue
		}
		if adv[e.Key()] {
			continue
		}
		if !reach[e.Key()] {
			g.Stale = append(g.Stale, e)
		}
	}
	return g
}

// Explain writes the gate's failures for people, each with what to do.
func (g *Gate) Explain(baselineFile string) string {
	var b strings.Builder
	for _, f := range g.New {
		fmt.Fprintf(&b, "new reachable vulnerability %s (%s) in %s %s (fixed in %s), via %s\n",
			f.ID, strings.Join(f.CVEs(), ", "), f.Module, f.Found, orNone(f.Fixed), strings.Join(f.Trace, " -> "))
	}
	if len(g.New) > 0 {
		fmt.Fprintf(&b, "  fix: move the module to a fixed version in the series, or add a line `<id>\\t<module>\\topen\\t<reason>` to %s\n", baselineFile)
	}
	for _, f := range g.StillFound {
		e := f.Key()
		fmt.Fprintf(&b, "%s is still reachable, but %s says a patch fixes it\n", e, baselineFile)
	}
	for _, e := range g.Stale {
		fmt.Fprintf(&b, "%s:%d: %s is no longer found: remove the line (the baseline only shrinks)\n", baselineFile, e.Line, e.Key())
	}
	for _, a := range g.Unrecorded {
		fmt.Fprintf(&b, "advisory %s (%s) affects %s of this line and has no status: add `%s\\t%s\\t<open|not-affected|fixed:NNNN>\\t<reason>` to %s\n",
			a.ID, strings.Join(a.Aliases, ", "), a.Module, a.ID, a.Module, baselineFile)
	}
	for _, e := range g.BadPatch {
		fmt.Fprintf(&b, "%s:%d: %s: the series has no patch %s\n", baselineFile, e.Line, e.Key(), e.Patch)
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "no version"
	}
	return s
}
