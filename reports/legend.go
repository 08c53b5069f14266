package reports

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendFrame is the colour of the frame every legend is drawn in (the
// layout test finds legends by it: reports/layout.LegendFrame).
var legendFrame = color.RGBA{140, 140, 140, 255}

// legendMargin is the room between a legend's frame and its entries.
const legendMargin = vg.Length(3)

// drawPlot draws p on c with its legend in a white frame where it covers
// no data mark: the first free corner of the data area (the corner p's
// legend asks for first), else beside the plot, on the right. It draws
// p's x tick labels rotated when they would overprint each other.
func drawPlot(c draw.Canvas, p *plot.Plot) {
	if rotateCrowdedTicks(c, p) {
		// A rotated label reaches left of its tick: the plot gives up
		// what the leftmost one needs.
		for range 2 {
			if need := leftOverhang(c, p); need > 0 {
				c = draw.Crop(c, need+vg.Points(2), 0, 0, 0)
			}
		}
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	size := leg.Rectangle(c).Size()
	if size.X == 0 {
		p.Draw(c)
		return
	}
	bw, bh := size.X+2*legendMargin, size.Y+2*legendMargin
	rec := &recorder{}
	rc := draw.Canvas{Canvas: rec, Rectangle: c.Rectangle}
	p.Draw(rc)
	dc := p.DataCanvas(c)
	corners := []struct{ top, left bool }{{leg.Top, leg.Left}, {!leg.Top, leg.Left}, {leg.Top, !leg.Left}, {!leg.Top, !leg.Left}}
	for _, k := range corners {
		box := vg.Rectangle{Min: vg.Point{X: dc.Max.X - bw, Y: dc.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: dc.Min.Y + bh}}
		if k.left {
			box.Min.X, box.Max.X = dc.Min.X, dc.Min.X+bw
		}
		if k.top {
			box.Min.Y, box.Max.Y = dc.Max.Y-bh, dc.Max.Y
		}
		if dc.Max.X-dc.Min.X > bw && dc.Max.Y-dc.Min.Y > bh && !rec.hits(box) {
			p.Draw(c)
			drawLegend(c, leg, box)
			return
		}
	}
	// No corner is free: the plot gives up the legend's width on the right.
	pc := draw.Crop(c, 0, -(bw + vg.Points(4)), 0, 0)
	p.Draw(pc)
	dc = p.DataCanvas(pc)
	box := vg.Rectangle{Min: vg.Point{X: c.Max.X - bw, Y: dc.Max.Y - bh}, Max: vg.Point{X: c.Max.X, Y: dc.Max.Y}}
	drawLegend(c, leg, box)
}

// drawLegend draws leg's entries in a framed white box.
func drawLegend(c draw.Canvas, leg plot.Legend, box vg.Rectangle) {
	pts := []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}}
	c.FillPolygon(color.White, pts)
	c.StrokeLines(draw.LineStyle{Color: legendFrame, Width: vg.Points(0.5)}, append(pts, pts[0]))
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, false, 0, 0
	inner := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: box.Min.X + legendMargin, Y: box.Min.Y + legendMargin},
		Max: vg.Point{X: box.Max.X - legendMargin, Y: box.Max.Y - legendMargin}}}
	leg.Draw(inner)
}

// leftOverhang is how far p's leftmost rotated x tick label reaches left
// of c.
func leftOverhang(c draw.Canvas, p *plot.Plot) vg.Length {
	dc := p.DataCanvas(c)
	sty := p.X.Tick.Label
	var need vg.Length
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label == "" {
			continue
		}
		x := dc.X(p.X.Norm(t.Value))
		reach := sty.Width(t.Label)*vg.Length(math.Cos(sty.Rotation)) + vg.Points(2)
		need = max(need, c.Min.X-(x-reach))
	}
	return need
}

// rotateCrowdedTicks turns p's x tick labels by 30 degrees when, level,
// two neighbours would overprint, and says whether it did (or they were
// turned already).
func rotateCrowdedTicks(c draw.Canvas, p *plot.Plot) bool {
	if p.X.Tick.Label.Rotation != 0 {
		return true
	}
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	dc := p.DataCanvas(c)
	sty := p.X.Tick.Label
	prevEnd := vg.Length(math.Inf(-1))
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		x := dc.X(p.X.Norm(t.Value))
		w := sty.Width(t.Label)
		if x-w/2 < prevEnd+vg.Points(3) {
			p.X.Tick.Label.Rotation = math.Pi / 6
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YTop
			return true
		}
		prevEnd = x + w/2
	}
	return false
}

// recorder is a vg.Canvas that keeps the boxes of what is drawn on it.
type recorder struct {
	boxes []vg.Rectangle
	white bool
}

func (r *recorder) SetLineWidth(vg.Length)             {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length) {}
func (r *recorder) SetColor(c color.Color) {
	if c == nil {
		c = color.Black
	}
	cr, cg, cb, ca := c.RGBA()
	r.white = ca == 0 || cr == 0xffff && cg == 0xffff && cb == 0xffff
}
func (r *recorder) Rotate(float64)                         {}
func (r *recorder) Translate(vg.Point)                     {}
func (r *recorder) Scale(float64, float64)                 {}
func (r *recorder) Push()                                  {}
func (r *recorder) Pop()                                   {}
func (r *recorder) FillString(font.Face, vg.Point, string) {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image)    {}
func (r *recorder) Stroke(p vg.Path)                       { r.path(p) }
func (r *recorder) Fill(p vg.Path)                         { r.path(p) }

func (r *recorder) path(p vg.Path) {
	if r.white || len(p) == 0 {
		return
	}
	b := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, c := range p {
		if c.Type == vg.CloseComp {
			continue
		}
		rad := c.Radius
		b.Min.X, b.Min.Y = min(b.Min.X, c.Pos.X-rad), min(b.Min.Y, c.Pos.Y-rad)
		b.Max.X, b.Max.Y = max(b.Max.X, c.Pos.X+rad), max(b.Max.Y, c.Pos.Y+rad)
	}
	r.boxes = append(r.boxes, b)
}

// hits is whether any recorded mark reaches into box.
func (r *recorder) hits(box vg.Rectangle) bool {
	for _, b := range r.boxes {
		if b.Min.X < box.Max.X && b.Max.X > box.Min.X && b.Min.Y < box.Max.Y && b.Max.Y > box.Min.Y {
			return true
		}
	}
	return false
}
