package experiment

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PointsWithErrors is XY data with Y error ranges (a series with its
// min–max bars; bench and scale draw them).
type PointsWithErrors struct {
	plotter.XYs
	plotter.YErrors
}

// AddSeries adds one label's points with their error bars, in the i-th
// color and shape.
func AddSeries(p *plot.Plot, label string, i int, pts PointsWithErrors) error {
	sc, err := plotter.NewScatter(pts.XYs)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Color = plotutil.Color(i)
	sc.GlyphStyle.Shape = plotutil.Shape(i)
	sc.GlyphStyle.Radius = vg.Points(4)
	eb, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return err
	}
	eb.LineStyle.Color = plotutil.Color(i)
	p.Add(sc, eb)
	p.Legend.Add(label, sc)
	return nil
}
