package vulns

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nomad-client-fork/nomad-client-fork/internal/atomicfile"
	"github.com/nomad-client-fork/nomad-client-fork/internal/progress"
	"github.com/nomad-client-fork/nomad-client-fork/internal/series"
)

// LineScan is one scan of a line and its gate: what the vulns verb does.
type LineScan struct {
	// Tools builds the scanner and the database.
	Tools Tools
	// Line names the line; Module and Version are its pinned upstream.
	Line, Module, Version string
	// Tree is the line's work tree, Patches its series' directory and
	// Baseline its baseline file.
	Tree, Patches, Baseline string
	// Patterns are the packages to scan, relative to Tree.
	Patterns []string
	// From, if set, is a saved govulncheck -json stream read instead of
	// scanning.
	From string
	// Out is the directory govulncheck.json and vulns.json go to.
	Out string
	// Root is the repository (its RecordFile); Statuses the line's
	// statuses of the record's entries.
	Root, Statuses string
	// Scanning is called before the scan with what it scans, to say so.
	Scanning func(prep *Prepared) string
	Log      io.Writer
}

// Result is what Run found, and what the line's documents are made of.
type Result struct {
	Prepared   *Prepared
	Report     *Report
	Baseline   *Baseline
	Advisories []Advisory
	// Patches maps the series' numbers (0001) to their file names.
	Patches map[string]string
	Gate    *Gate
	// Record is Nomad's security record decided on the line.
	Record *RecordCheck
}

// Run prepares the tools, scans Tree (or reads From), writes the
// scanner's stream and the findings to Out, and checks them against the
// baseline and the advisories of the module.
func (r LineScan) Run(ctx context.Context) (*Result, error) {
	if err := os.MkdirAll(r.Out, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w (free space or pass -o)", r.Out, err)
	}
	res := &Result{}
	if r.From != "" {
		// Read the saved scan first: a wrong path fails before the
		// tools are prepared.
		f, err := os.Open(r.From)
		if err != nil {
			return nil, fmt.Errorf("reading the saved scan: %w (pass a govulncheck -json file, such as <o>/govulncheck.json, or run without -from to scan)", err)
		}
		res.Report, err = ParseJSON(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.From, err)
		}
	}
	if err := progress.Step(r.Log, "preparing govulncheck and the vulnerability database", func() (err error) {
		res.Prepared, err = r.Tools.Prepare(ctx)
		return err
	}); err != nil {
		return nil, err
	}
	prep := res.Prepared
	if r.From == "" {
		var raw strings.Builder
		if err := progress.Step(r.Log, r.Scanning(prep), func() (err error) {
			res.Report, err = Scan(ctx, ScanOptions{Govulncheck: prep.Govulncheck, DB: prep.DB, Dir: r.Tree,
				Patterns: r.Patterns, Toolchain: prep.Toolchain, Raw: &raw})
			return err
		}); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(filepath.Join(r.Out, "govulncheck.json"), []byte(raw.String()), 0o644); err != nil {
			return nil, err
		}
	}
	if err := atomicfile.WriteJSON(filepath.Join(r.Out, "vulns.json"), res.Report); err != nil {
		return nil, err
	}
	var err error
	if res.Baseline, err = ReadBaseline(r.Baseline); err != nil {
		return nil, err
	}
	if res.Advisories, err = Advisories(prep.DB, r.Module, r.Version); err != nil {
		return nil, err
	}
	patches, err := series.List(r.Patches)
	if err != nil {
		return nil, err
	}
	res.Patches = map[string]string{}
	for _, pt := range patches {
		res.Patches[fmt.Sprintf("%04d", pt.Number)] = pt.Name
	}
	res.Gate = Check(GateInput{Report: res.Report, Baseline: res.Baseline, Advisories: res.Advisories, Patches: res.Patches})
	if res.Record, err = LineRecord(r.Root, r.Statuses, patches, res.Advisories, true); err != nil {
		return nil, err
	}
	return res, nil
}

// WriteDoc writes the line's security document to file from res: the
// baseline (baselineFile names it), the series and the scan; command is
// what makes it.
func (res *Result) WriteDoc(file, line, command, baselineFile string) error {
	data := Doc(DocInput{Line: line, Command: command, Pins: res.Prepared.Pins, Report: res.Report, Baseline: res.Baseline,
		BaselineFile: baselineFile, Advisories: res.Advisories, Patches: res.Patches, Record: res.Record})
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(file, data, 0o644)
}
