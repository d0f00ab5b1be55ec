package bench

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeadlineFigures are the figures of the headline chart.
var HeadlineFigures = []string{"update_alloc_rpcs", "raft_applies", "initial_seconds", "rolling_seconds"}

var headlineNames = map[string]string{
	"update_alloc_rpcs": "UpdateAlloc RPCs",
	"raft_applies":      "Raft applies",
	"initial_seconds":   "initial deploy time",
	"rolling_seconds":   "rolling deploy time",
}

// pointsWithErrors is XY data with X and Y error ranges.
type pointsWithErrors struct {
	plotter.XYs
	plotter.XErrors
	plotter.YErrors
}

// HeadlineChart draws, per headline figure, each label's median as a ratio
// to base's median, with its min–max range, and a line at 1.
func HeadlineChart(r *Report, base, file string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Alloc-update traffic and deployment time, %s, N=%d, %d round(s); ratio to %s (median, min–max)", shapeOf(r), r.Count, r.Rounds, base)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.Text = "× " + base + " median"
	p.Add(plotter.NewGrid())
	names := make([]string, len(HeadlineFigures))
	for i, k := range HeadlineFigures {
		names[i] = headlineNames[k]
	}
	var baseStats map[string]Stat
	if b := r.Summary(base); b != nil {
		baseStats = b.Stats
	}
	n := len(r.Summaries)
	width := 0.6
	for li, s := range r.Summaries {
		var pts pointsWithErrors
		for fi, k := range HeadlineFigures {
			st, ok := s.Stats[k]
			b, bok := baseStats[k]
			if !ok || !bok || b.Median == 0 {
				continue
			}
			x := float64(fi)
			if n > 1 {
				x += -width/2 + width*float64(li)/float64(n-1)
			}
			y := st.Median / b.Median
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: y})
			pts.XErrors = append(pts.XErrors, struct{ Low, High float64 }{})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{Low: y - st.Min/b.Median, High: st.Max/b.Median - y})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(li)
		sc.GlyphStyle.Shape = plotutil.Shape(li)
		sc.GlyphStyle.Radius = vg.Points(4)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		eb.LineStyle.Color = plotutil.Color(li)
		p.Add(sc, eb)
		p.Legend.Add(s.Label, sc)
	}
	one := plotter.NewFunction(func(float64) float64 { return 1 })
	one.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	one.LineStyle.Color = color.Gray{Y: 96}
	p.Add(one)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.Y.Min = 0
	// Headroom for the legend in the upper right corner.
	p.Y.Max = math.Max(p.Y.Max, 1.2) * 1.3
	p.Legend.Top = true
	return p.Save(9*vg.Inch, 5*vg.Inch, file)
}

// TradeoffChart draws a point per label: Node.UpdateAlloc RPCs (medians,
// min–max bars) against rolling deployment time.
func TradeoffChart(r *Report, file string) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Node.UpdateAlloc RPCs vs rolling deployment time (%s, N=%d, %d rounds: median, min–max)", shapeOf(r), r.Count, r.Rounds)
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "rolling deployment (s)"
	p.Y.Label.Text = "Node.UpdateAlloc RPCs (whole run)"
	p.Add(plotter.NewGrid())
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for li, s := range r.Summaries {
		rpc, ok1 := s.Stats["update_alloc_rpcs"]
		roll, ok2 := s.Stats["rolling_seconds"]
		if !ok1 || !ok2 {
			continue
		}
		pts := pointsWithErrors{
			XYs:     plotter.XYs{{X: roll.Median, Y: rpc.Median}},
			XErrors: plotter.XErrors{{Low: roll.Median - roll.Min, High: roll.Max - roll.Median}},
			YErrors: plotter.YErrors{{Low: rpc.Median - rpc.Min, High: rpc.Max - rpc.Median}},
		}
		xmin, xmax = math.Min(xmin, roll.Min), math.Max(xmax, roll.Max)
		ymin, ymax = math.Min(ymin, rpc.Min), math.Max(ymax, rpc.Max)
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return err
		}
		sc.GlyphStyle.Color = plotutil.Color(li)
		sc.GlyphStyle.Shape = plotutil.Shape(li)
		sc.GlyphStyle.Radius = vg.Points(5)
		xe, err := plotter.NewXErrorBars(pts)
		if err != nil {
			return err
		}
		ye, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		xe.LineStyle.Color, ye.LineStyle.Color = plotutil.Color(li), plotutil.Color(li)
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: pts.XYs, Labels: []string{s.Label}})
		if err != nil {
			return err
		}
		labels.Offset = vg.Point{X: vg.Points(7), Y: vg.Points(4)}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Color = plotutil.Color(li)
		}
		p.Add(sc, xe, ye, labels)
		p.Legend.Add(s.Label, sc)
	}
	p.Legend.Top = true
	if !math.IsInf(xmin, 1) {
		padX := math.Max((xmax-xmin)*0.25, 1)
		padY := math.Max((ymax-ymin)*0.25, 5)
		p.X.Min, p.X.Max = math.Max(0, xmin-padX), xmax+padX
		p.Y.Min, p.Y.Max = math.Max(0, ymin-padY), ymax+padY
	}
	p.Add(lowerLeftNote("lower left is better"))
	return p.Save(7*vg.Inch, 5*vg.Inch, file)
}

// lowerLeftNote is a plotter that writes a note in the plot's lower left
// corner.
type lowerLeftNote string

func (n lowerLeftNote) Plot(c draw.Canvas, p *plot.Plot) {
	sty := draw.TextStyle{Color: color.Gray{Y: 96}, Font: p.X.Tick.Label.Font, Handler: p.X.Tick.Label.Handler}
	c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(6), Y: c.Min.Y + vg.Points(6)}, string(n))
}

// shapeOf names the report's cluster for a chart's title.
func shapeOf(r *Report) string {
	if r.Topology == "" {
		return "1 server, 3 clients"
	}
	return fmt.Sprintf("%d server(s), %d clients", r.Servers, r.Clients)
}
