package reports

import (
	"bytes"
	"fmt"
	"image/color"
	pngenc "image/png"
	"math"
	"path/filepath"
	"strings"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ub-bench/ub/queries"
)

// Number formats of every table and caption: fixed decimals, so the same
// value always prints the same text, "n/a" for NaN, and no negative zero.
func fnum(x float64, dec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	s := fmt.Sprintf("%.*f", dec, x)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func f3(x float64) string { return fnum(x, 3) }
func f2(x float64) string { return fnum(x, 2) }
func f1(x float64) string { return fnum(x, 1) }

// s3 is f3 with a sign: +0.099, -0.016.
func s3(x float64) string {
	s := f3(x)
	if s != "n/a" && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func s2(x float64) string {
	s := f2(x)
	if s != "n/a" && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// pval prints a p-value: three decimals, or "<0.001".
func pval(p float64) string {
	if !math.IsNaN(p) && p < 0.001 {
		return "<0.001"
	}
	return f3(p)
}

// drawing is one figure's picture: what to draw on a canvas of w x h.
type drawing struct {
	w, h vg.Length
	draw func(draw.Canvas)
	// mark, when set, is drawn in a strip below the picture: the
	// "synthetic data" note of a workspace ub made up (Report.syntheticMark).
	mark string
}

// markStrip is the height of the strip a drawing's mark is drawn in.
const markStrip = vg.Length(14)

// marked returns d with its mark drawn below it, in a strip of its own so
// that it covers nothing; d itself when it has no mark.
func (d drawing) marked() drawing {
	if d.mark == "" {
		return d
	}
	inner := d.draw
	return drawing{w: d.w, h: d.h + markStrip, draw: func(c draw.Canvas) {
		inner(draw.Crop(c, 0, 0, markStrip, 0))
		sty := text.Style{Color: colAnchor, Font: font.From(plot.DefaultFont, vg.Points(8)), Handler: plot.DefaultTextHandler,
			XAlign: draw.XLeft, YAlign: draw.YCenter}
		sty.Font.Style = stdfont.StyleItalic
		c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(4), Y: c.Min.Y + markStrip/2}, d.mark)
	}}
}

// border is the white border around every picture: no label is flush with
// the edge of the canvas (reports/layout.Margin is what a check demands).
const border = vg.Length(4)

// padded returns d drawn inside a border of that width on every side.
func (d drawing) padded() drawing {
	inner := d.draw
	return drawing{w: d.w + 2*border, h: d.h + 2*border, draw: func(c draw.Canvas) {
		inner(draw.Crop(c, border, -border, border, -border))
	}}
}

func single(p *plot.Plot, w, h vg.Length) drawing {
	finiteAxes(p)
	return drawing{w: w, h: h, draw: func(c draw.Canvas) { drawPlot(c, p) }}
}

// finiteAxes replaces a non-finite axis bound by a finite one. A plotter
// holding a NaN (an interval of one developer, a correlation of constant
// data) spreads it to the axis through math.Min and math.Max, and
// gonum/plot's tick search never ends on a NaN range: every figure passes
// here before it is drawn.
func finiteAxes(p *plot.Plot) {
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		lo, hi := a.Min, a.Max
		okLo, okHi := !math.IsNaN(lo) && !math.IsInf(lo, 0), !math.IsNaN(hi) && !math.IsInf(hi, 0)
		switch {
		case okLo && okHi:
			continue
		case okLo:
			hi = lo + 1
		case okHi:
			lo = hi - 1
		default:
			lo, hi = 0, 1
		}
		a.Min, a.Max = lo, hi
	}
}

// panels draws plots side by side, their axes aligned.
func panels(plots []*plot.Plot, w, h vg.Length) drawing {
	for _, p := range plots {
		finiteAxes(p)
	}
	return drawing{w: w, h: h, draw: func(c draw.Canvas) {
		t := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(14), PadTop: vg.Points(2), PadBottom: vg.Points(2),
			PadLeft: vg.Points(2), PadRight: vg.Points(6)}
		cs := plot.Align([][]*plot.Plot{plots}, t, c)
		for i, p := range plots {
			drawPlot(cs[0][i], p)
		}
	}}
}

// saveDrawing writes d as name.svg and name.png (150 dpi) into dir, as
// saveFigure does for one plot, and returns the paths, sorted.
func saveDrawing(dir, name string, d drawing) ([]string, error) {
	d = d.marked().padded()
	svg := vgsvg.New(d.w, d.h)
	d.draw(draw.New(svg))
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return nil, err
	}
	png := vgimg.NewWith(vgimg.UseWH(d.w, d.h), vgimg.UseDPI(150))
	dc := draw.New(png)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	d.draw(dc)
	// Fastest deflate: encoding is most of a figure's time, and the bytes
	// are as deterministic at any level.
	var pb bytes.Buffer
	if err := (&pngenc.Encoder{CompressionLevel: pngenc.BestSpeed}).Encode(&pb, png.Image()); err != nil {
		return nil, err
	}
	paths := []string{filepath.Join(dir, name+".png"), filepath.Join(dir, name+".svg")}
	for i, b := range [][]byte{pb.Bytes(), sb.Bytes()} {
		if err := writeAtomic(paths[i], b); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// newPlot is a plot with the report's title and axis labels.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Label.TextStyle.Font.Size = vg.Points(10)
	p.Y.Label.TextStyle.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(14)
	p.Legend.Padding = vg.Points(2)
	return p
}

// Colours of the conditions and of the reference marks.
var (
	colNoProfile = palette[0] // blue
	colProfile   = palette[1] // orange
	colTerse     = palette[2] // green
	colAnchor    = palette[5] // vermilion
	colGrey      = color.RGBA{110, 110, 110, 255}
	colLight     = color.RGBA{225, 225, 225, 255}
)

func conditionColor(cond string, i int) color.Color {
	switch cond {
	case queries.CondNoProfile:
		return colNoProfile
	case queries.CondProfile:
		return colProfile
	case queries.CondTerse:
		return colTerse
	}
	return palette[(3+i)%len(palette)]
}

// interval is a point with its interval, for dot plots.
type interval struct {
	v, lo, hi float64
}

// errDots adds, at positions pos along the category axis, dots at the
// values with their intervals as error bars: horizontal when horiz (the
// value on X), vertical otherwise. Intervals with NaN bounds get no bar;
// NaN values no dot. It returns the dots' scatter for a legend.
func errDots(p *plot.Plot, pos []float64, vals []interval, horiz bool, col color.Color, shape draw.GlyphDrawer, radius vg.Length) (*plotter.Scatter, error) {
	var xys plotter.XYs
	var bars plotter.XYs
	var errs plotter.Errors
	for i, v := range vals {
		if math.IsNaN(v.v) {
			continue
		}
		pt := plotter.XY{X: pos[i], Y: v.v}
		if horiz {
			pt = plotter.XY{X: v.v, Y: pos[i]}
		}
		xys = append(xys, pt)
		if !math.IsNaN(v.lo) && !math.IsNaN(v.hi) {
			bars = append(bars, pt)
			errs = append(errs, struct{ Low, High float64 }{v.v - v.lo, v.hi - v.v})
		}
	}
	if len(bars) > 0 {
		var pl plot.Plotter
		if horiz {
			eb, err := plotter.NewXErrorBars(struct {
				plotter.XYs
				plotter.XErrors
			}{bars, plotter.XErrors(errs)})
			if err != nil {
				return nil, err
			}
			eb.LineStyle.Color = col
			eb.LineStyle.Width = vg.Points(1.2)
			pl = eb
		} else {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{bars, plotter.YErrors(errs)})
			if err != nil {
				return nil, err
			}
			eb.LineStyle.Color = col
			eb.LineStyle.Width = vg.Points(1.2)
			pl = eb
		}
		p.Add(pl)
	}
	if len(xys) == 0 {
		return nil, nil
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Color = col
	s.GlyphStyle.Shape = shape
	s.GlyphStyle.Radius = radius
	p.Add(s)
	return s, nil
}

// refLine adds a straight dashed reference line: vertical at x = v when
// vertical, else horizontal at y = v, spanning lo..hi on the other axis.
func refLine(p *plot.Plot, v, lo, hi float64, vertical bool, col color.Color, dashed bool) (*plotter.Line, error) {
	pts := plotter.XYs{{X: lo, Y: v}, {X: hi, Y: v}}
	if vertical {
		pts = plotter.XYs{{X: v, Y: lo}, {X: v, Y: hi}}
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.LineStyle.Color = col
	l.LineStyle.Width = vg.Points(1)
	if dashed {
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	return l, nil
}

// cellGrid draws a grid of coloured cells with a text in each: cell (c, r)
// is centred on x = c, y = r. It is the heatmap, the per-move breakdown and
// the case study.
type cellGrid struct {
	cols, rows int
	// fill gives a cell's colour; ok false leaves the cell blank.
	fill func(c, r int) (col color.Color, ok bool)
	text func(c, r int) string
	// outline marks a cell with a black frame (a hit, in the case study).
	outline func(c, r int) bool
	size    vg.Length // font size
}

// Plot draws the cells (plot.Plotter).
func (g *cellGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	size := g.size
	if size == 0 {
		size = vg.Points(9)
	}
	for col := 0; col < g.cols; col++ {
		for r := 0; r < g.rows; r++ {
			fc, ok := g.fill(col, r)
			if !ok {
				continue
			}
			x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)
			y0, y1 := trY(float64(r)-0.5), trY(float64(r)+0.5)
			rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
			c.FillPolygon(fc, rect)
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)}, append(rect, rect[0]))
			if g.outline != nil && g.outline(col, r) {
				in := vg.Points(1.5)
				box := []vg.Point{{X: x0 + in, Y: y0 + in}, {X: x1 - in, Y: y0 + in}, {X: x1 - in, Y: y1 - in}, {X: x0 + in, Y: y1 - in}, {X: x0 + in, Y: y0 + in}}
				c.StrokeLines(draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}, box)
			}
			if g.text == nil {
				continue
			}
			sty := text.Style{
				Color:   textOn(fc),
				Font:    font.From(plot.DefaultFont, size),
				Handler: plot.DefaultTextHandler,
				XAlign:  draw.XCenter,
				YAlign:  draw.YCenter,
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, g.text(col, r))
		}
	}
}

// DataRange spans the cells (plot.DataRanger).
func (g *cellGrid) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(g.cols) - 0.5, -0.5, float64(g.rows) - 0.5
}

// textOn is black on light colours and white on dark ones (relative
// luminance below 0.4).
func textOn(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	l := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
	if l < 0.4 {
		return color.White
	}
	return color.Black
}

func lerp(a, b color.RGBA, t float64) color.Color {
	t = math.Max(0, math.Min(1, t))
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + t*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// diverging maps v in [-m, m] to vermilion - white - blue (negative is
// vermilion), for lifts.
func diverging(v, m float64) color.Color {
	white := color.RGBA{247, 247, 247, 255}
	if math.IsNaN(v) {
		return colLight
	}
	if v < 0 {
		return lerp(white, color.RGBA{213, 94, 0, 255}, -v/m)
	}
	return lerp(white, color.RGBA{0, 114, 178, 255}, v/m)
}

// sequential maps v in [lo, hi] to white - dark blue, for accuracies.
func sequential(v, lo, hi float64) color.Color {
	if math.IsNaN(v) {
		return colLight
	}
	t := 0.5
	if hi > lo {
		t = (v - lo) / (hi - lo)
	}
	return lerp(color.RGBA{240, 246, 252, 255}, color.RGBA{8, 69, 148, 255}, 0.1+0.9*t)
}

// moveColor is the colour of a move in the case study.
func moveColor(m string) color.Color {
	switch m {
	case "approve":
		return color.RGBA{0, 158, 115, 255}
	case "critical":
		return color.RGBA{213, 94, 0, 255}
	case "directive":
		return color.RGBA{86, 180, 233, 255}
	case "inquiry":
		return color.RGBA{230, 159, 0, 255}
	case "":
		return colLight
	}
	return color.RGBA{170, 170, 170, 255}
}

// niceAxis fits a to lo..hi widened by a twentieth of the span on each
// side, with ticks at even steps of 1, 2 or 5 times a power of ten (4 to
// 10 of them), every one labelled with the same number of decimals. A
// span of zero is widened to a step of its own.
func niceAxis(a *plot.Axis, lo, hi float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return
	}
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(lo), 1) / 10
	}
	lo, hi = lo-span/20, hi+span/20
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	var step float64
	for _, m := range []float64{1, 2, 5, 10} {
		step = m * mag
		if (hi-lo)/step <= 5 {
			break
		}
	}
	first, last := math.Floor(lo/step+1e-9), math.Ceil(hi/step-1e-9)
	a.Min, a.Max = first*step, last*step
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for k := first; k <= last+1e-9; k++ {
		ticks = append(ticks, plot.Tick{Value: k * step, Label: fnum(k*step, dec)})
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
}
