package bench

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/nomad-client-fork/nomad-client-fork/internal/experiment"
)

// SummaryChart draws, per workload and topology (one column each), every
// label's median of the figure key as a ratio to base's median, with its
// min–max range, a dashed line at 1 and, for the RPCs, the floor.
func SummaryChart(r *Report, key, title, file string) error {
	base := r.BaseLabel()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s × %s (median, min–max), %d round(s)", title, base, r.Rounds)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.Text = "× " + base + " median"
	p.Add(plotter.NewGrid())
	var names []string
	for _, t := range r.Tables {
		names = append(names, fmt.Sprintf("%s\n%s", t.Workload, t.Topology))
	}
	var labels []string
	if len(r.Tables) > 0 {
		for _, s := range r.Tables[0].Labels {
			labels = append(labels, s.Label)
		}
	}
	series := len(labels)
	if key == "update_alloc_rpcs" {
		series++ // the floor
	}
	width := 0.6
	x := func(col, li int) float64 {
		if series <= 1 {
			return float64(col)
		}
		return float64(col) - width/2 + width*float64(li)/float64(series-1)
	}
	ymax := 1.2
	for li, label := range labels {
		var pts experiment.PointsWithErrors
		for col := range r.Tables {
			t := &r.Tables[col]
			s, b := t.Label(label), t.Label(base)
			if s == nil || b == nil {
				continue
			}
			st, ok := s.Stats[key]
			bs, bok := b.Stats[key]
			if !ok || !bok || bs.Median == 0 {
				continue
			}
			y := st.Median / bs.Median
			pts.XYs = append(pts.XYs, plotter.XY{X: x(col, li), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: y - st.Min/bs.Median, High: st.Max/bs.Median - y})
			ymax = math.Max(ymax, st.Max/bs.Median)
		}
		if len(pts.XYs) == 0 {
			continue
		}
		if err := experiment.AddSeries(p, label, li, pts); err != nil {
			return err
		}
	}
	if key == "update_alloc_rpcs" {
		var pts experiment.PointsWithErrors
		for col := range r.Tables {
			t := &r.Tables[col]
			b := t.Label(base)
			if b == nil || t.Floor == nil {
				continue
			}
			bs, ok := b.Stats[key]
			if !ok || bs.Median == 0 {
				continue
			}
			y := t.Floor.Median / bs.Median
			pts.XYs = append(pts.XYs, plotter.XY{X: x(col, len(labels)), Y: y})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: y - t.Floor.Min/bs.Median, High: t.Floor.Max/bs.Median - y})
		}
		if len(pts.XYs) > 0 {
			if err := experiment.AddSeries(p, "floor", len(labels), pts); err != nil {
				return err
			}
		}
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	one.LineStyle.Color = color.Gray{Y: 96}
	p.Add(one)
	if len(names) > 0 {
		p.NominalX(names...)
	}
	p.X.Min, p.X.Max = -0.6, math.Max(float64(len(names))-0.4, 0.6)
	p.Y.Min = 0
	// Headroom for the legend in the upper right corner.
	p.Y.Max = ymax * 1.3
	p.Legend.Top = true
	w := vg.Length(math.Max(9, 1.1*float64(len(names)))) * vg.Inch
	return p.Save(w, 5*vg.Inch, file)
}
