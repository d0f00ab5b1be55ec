package scale

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// WriteCharts draws, for every figure of the table with a chart key (but a
// workload's that did not run), the
// figure against the fleet size: per build its median over the rounds with
// the min–max range, into dir/<key>.png. It returns the files.
func WriteCharts(rep *Report, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, rw := range rows {
		if rw.key == "" || !rw.ran(rep.Results) {
			continue
		}
		f := filepath.Join(dir, rw.key+".png")
		if err := SizeChart(rep, rw, f); err != nil {
			return files, fmt.Errorf("%s: %w", f, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// SizeChart draws one row's figure against the fleet size, a series per
// build.
func SizeChart(rep *Report, rw row, file string) error {
	p := plot.New()
	name := strings.NewReplacer("`", "", "**", "").Replace(rw.name)
	p.Title.Text = fmt.Sprintf("%s against fleet size (median, min–max), %d round(s)", name, max(1, rep.Rounds))
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "simulated nodes"
	p.Y.Label.Text = unit(rw.format)
	p.Add(plotter.NewGrid())
	sizes := reportSizes(rep)
	ymax := 0.0
	for li, l := range reportLabels(rep) {
		var pts experiment.PointsWithErrors
		for _, n := range sizes {
			runs := runsOf(rep, l, n)
			var vs []float64
			for _, r := range runs {
				if v, ok := rw.num(r); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				continue
			}
			med, lo, hi := experiment.Median(vs), slices.Min(vs), slices.Max(vs)
			pts.XYs = append(pts.XYs, plotter.XY{X: float64(n), Y: med})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: med - lo, High: hi - med})
			ymax = math.Max(ymax, hi)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		if err := experiment.AddSeries(p, l, li, pts); err != nil {
			return err
		}
		line, err := plotter.NewLine(pts.XYs)
		if err != nil {
			return err
		}
		line.LineStyle.Color = plotutil.Color(li)
		p.Add(line)
	}
	if len(sizes) > 0 {
		pad := math.Max(1, float64(sizes[len(sizes)-1]-sizes[0])*0.05)
		p.X.Min, p.X.Max = float64(sizes[0])-pad, float64(sizes[len(sizes)-1])+pad
	}
	p.Y.Min = 0
	// Headroom for the legend in the upper left corner.
	p.Y.Max = math.Max(ymax*1.3, 1)
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 5*vg.Inch, file)
}

// unit is the unit of a row's format ("%.1f s" → "s"), or "count".
func unit(format string) string {
	var v float64
	var u string
	if n, _ := fmt.Sscanf(fmt.Sprintf(format, 1.0), "%g %s", &v, &u); n == 2 {
		return u
	}
	return "count"
}
