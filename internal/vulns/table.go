package vulns

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the findings, reachable ones first, each with its
// baseline status: ID, aliases, module, found -> fixed, reachability
// (the vulnerable symbol) and one example trace.
func WriteTable(w io.Writer, rep *Report, b *Baseline) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tALIASES\tMODULE\tFOUND -> FIXED\tREACHABLE\tBASELINE")
	for _, lvl := range []Level{LevelSymbol, LevelPackage, LevelModule} {
		for _, f := range rep.Findings {
			if f.Level != lvl {
				continue
			}
			reach := "no (" + lvl.String() + ")"
			if lvl == LevelSymbol {
				reach = "yes: " + f.Symbols[0]
				if len(f.Symbols) > 1 {
					reach += fmt.Sprintf(" (+%d)", len(f.Symbols)-1)
				}
			}
			status := "-"
			if e := b.Find(f.Key()); e != nil {
				status = e.StatusText()
			} else if lvl == LevelSymbol {
				status = "NEW"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s -> %s\t%s\t%s\n", f.ID, strings.Join(f.CVEs(), ","), f.Module, f.Found, orNone(f.Fixed), reach, status)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.Reachable()) > 0 {
		fmt.Fprintln(w, "\nexample traces of the reachable ones (entry point -> vulnerable symbol):")
	}
	for _, f := range rep.Reachable() {
		fmt.Fprintf(w, "  %s: %s\n", f.ID, strings.Join(f.Trace, " -> "))
	}
	return nil
}

// WriteSummary writes the counts per level and per module of the
// reachable findings.
func WriteSummary(w io.Writer, rep *Report) {
	byMod := map[string]int{}
	var mods []string
	for _, f := range rep.Reachable() {
		if byMod[f.Module] == 0 {
			mods = append(mods, f.Module)
		}
		byMod[f.Module]++
	}
	var parts []string
	for _, m := range mods {
		parts = append(parts, fmt.Sprintf("%s %d", m, byMod[m]))
	}
	fmt.Fprintf(w, "%d reachable (symbol level), %d imported but not called (package), %d required only (module); scanned with %s, %s\n",
		rep.Count(LevelSymbol), rep.Count(LevelPackage), rep.Count(LevelModule), rep.GoVersion, rep.Scanner)
	if len(parts) > 0 {
		fmt.Fprintf(w, "reachable by module: %s\n", strings.Join(parts, ", "))
	}
}
