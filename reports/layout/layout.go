// Package layout checks the pictures ub draws for what makes a figure
// unreadable: two texts overprinting, a text leaving the canvas, a legend
// covering a data mark. It reads the SVG files gonum/plot's vgsvg writes
// (texts as <text> in the Liberation fonts, marks as <path>, groups with
// transforms) and measures each text with the font metrics gonum/plot
// draws it with (gonum.org/v1/plot/font/liberation advance widths).
package layout

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/vg"
)

// LegendFrame is the stroke colour (SVG hex) of the frame every legend of
// ub's figures is drawn in: the checker finds legends by it.
const LegendFrame = "#8C8C8C"

// Text is one text element: its string and the corners of its box in
// canvas coordinates (points, y down).
type Text struct {
	S   string
	Box [4][2]float64
}

// Mark is one drawn path: its bounding box (x0, y0, x1, y1), whether it is
// a legend frame or a guide (an axis, a tick, a grid line: not data), its
// index in drawing order and, for a path only stroked along straight
// lines, its segments (a line crosses a box only where a segment does;
// filled paths and arcs are their bounding box).
type Mark struct {
	Box    [4]float64
	Legend bool
	Guide  bool
	Order  int
	Segs   [][2][2]float64
}

// Picture is what an SVG draws.
type Picture struct {
	W, H  float64
	Texts []Text
	Marks []Mark
}

type affine [6]float64 // a b c d e f: x' = a x + c y + e, y' = b x + d y + f

var identity = affine{1, 0, 0, 1, 0, 0}

func (m affine) mul(n affine) affine { // m then n applied after: m ∘ n (n first)
	return affine{
		m[0]*n[0] + m[2]*n[1], m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3], m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4], m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

func (m affine) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// parseTransform reads the transforms vgsvg writes: scale, translate,
// rotate (degrees) and matrix, applied right to left as SVG does.
func parseTransform(s string) (affine, error) {
	m := identity
	s = strings.TrimSpace(s)
	for s != "" {
		i := strings.IndexByte(s, '(')
		j := strings.IndexByte(s, ')')
		if i < 0 || j < i {
			return m, fmt.Errorf("transform %q", s)
		}
		name := strings.TrimSpace(s[:i])
		var args []float64
		for _, f := range strings.FieldsFunc(s[i+1:j], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return m, fmt.Errorf("transform %q: %v", s, err)
			}
			args = append(args, v)
		}
		var t affine
		switch {
		case name == "scale" && len(args) == 2:
			t = affine{args[0], 0, 0, args[1], 0, 0}
		case name == "scale" && len(args) == 1:
			t = affine{args[0], 0, 0, args[0], 0, 0}
		case name == "translate" && len(args) == 2:
			t = affine{1, 0, 0, 1, args[0], args[1]}
		case name == "rotate" && len(args) == 1:
			sn, cs := math.Sincos(args[0] * math.Pi / 180)
			t = affine{cs, sn, -sn, cs, 0, 0}
		case name == "matrix" && len(args) == 6:
			copy(t[:], args)
		default:
			return m, fmt.Errorf("transform %q: unknown %s%v", s, name, args)
		}
		m = m.mul(t)
		s = strings.TrimSpace(s[j+1:])
	}
	return m, nil
}

var fonts = font.NewCache(liberation.Collection())

// face returns the face of a vgsvg text style.
func face(style string) (font.Face, error) {
	props := map[string]string{}
	for _, kv := range strings.Split(style, ";") {
		if k, v, ok := strings.Cut(kv, ":"); ok {
			props[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	size, err := strconv.ParseFloat(strings.TrimSuffix(props["font-size"], "px"), 64)
	if err != nil {
		return font.Face{}, fmt.Errorf("font-size in %q", style)
	}
	f := font.Font{Typeface: font.Typeface(strings.TrimPrefix(props["font-family"], "Liberation ")), Size: vg.Length(size)}
	switch props["font-family"] {
	case "Liberation Serif":
		f.Typeface = "Liberation"
		f.Variant = "Serif"
	case "Liberation Sans":
		f.Typeface = "Liberation"
		f.Variant = "Sans"
	case "Liberation Mono":
		f.Typeface = "Liberation"
		f.Variant = "Mono"
	}
	if props["font-style"] == "italic" {
		f.Style = xfont.StyleItalic
	}
	if props["font-weight"] == "bold" {
		f.Weight = xfont.WeightBold
	}
	if !fonts.Has(f) {
		return font.Face{}, fmt.Errorf("no font for %q", style)
	}
	return fonts.Lookup(f, f.Size), nil
}

// ink returns how far the glyphs of s rise above and drop below the
// baseline, in points.
func ink(fc font.Face, s string) (asc, desc float64, err error) {
	f, err := opentype.NewFace(fc.Face, &opentype.FaceOptions{Size: fc.Font.Size.Points(), DPI: 72, Hinting: xfont.HintingNone})
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	b, _ := xfont.BoundString(f, s)
	return -float64(b.Min.Y) / 64, float64(b.Max.Y) / 64, nil
}

// ReadFile is Read of the SVG at path; its errors name the path.
func ReadFile(path string) (*Picture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pic, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pic, nil
}

// Read parses an SVG that vgsvg wrote.
func Read(r io.Reader) (*Picture, error) {
	dec := xml.NewDecoder(r)
	pic := &Picture{}
	stack := []affine{identity}
	order := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return pic, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range t.Attr {
				attr[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			m, err := parseTransform(attr["transform"])
			if err != nil {
				return nil, err
			}
			cur := top.mul(m)
			switch t.Name.Local {
			case "svg":
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					return nil, fmt.Errorf("svg: viewBox %q", attr["viewBox"])
				}
				pic.W, _ = strconv.ParseFloat(vb[2], 64)
				pic.H, _ = strconv.ParseFloat(vb[3], 64)
			case "text":
				var s string
				if err := dec.DecodeElement(&s, &t); err != nil {
					return nil, err
				}
				fc, err := face(attr["style"])
				if err != nil {
					return nil, err
				}
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				// The advance width gonum/plot lays the text out with; the
				// height of its ink (the font's ascent and descent leave
				// room no glyph fills, and stacked legend entries sit
				// closer than that).
				w := fc.Width(s).Points()
				asc, desc, err := ink(fc, s)
				if err != nil {
					return nil, err
				}
				// In the text's own frame (scale(1, -1) undone by the
				// transform), y grows down: the glyphs rise above y.
				corners := [4][2]float64{{x, y - asc}, {x + w, y - asc}, {x + w, y + desc}, {x, y + desc}}
				var box [4][2]float64
				for i, c := range corners {
					box[i][0], box[i][1] = cur.apply(c[0], c[1])
				}
				pic.Texts = append(pic.Texts, Text{S: s, Box: box})
				continue // DecodeElement consumed the end element
			case "path":
				b, segs, ok := pathBox(attr["d"], cur)
				if sty := attr["style"]; ok && !white(sty) {
					mk := Mark{Box: b, Legend: strings.Contains(sty, "stroke:"+LegendFrame), Guide: guide(sty), Order: order}
					if strings.Contains(sty, "fill:none") {
						mk.Segs = segs
					}
					pic.Marks = append(pic.Marks, mk)
				}
				order++
			}
			stack = append(stack, cur)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

// white is whether a path is painted only in white or not at all: a
// background, a cell's border.
func white(style string) bool {
	for _, kv := range strings.Split(style, ";") {
		k, v, _ := strings.Cut(kv, ":")
		if (k == "fill" || k == "stroke") && v != "none" && v != "#FFFFFF" {
			return false
		}
	}
	return true
}

// guide is whether a path's style is one gonum/plot draws axes, ticks
// (black, 0.5 wide) or grid lines (grey, 0.25 wide) in.
func guide(style string) bool {
	return strings.Contains(style, "stroke:#000000;stroke-width:0.5") || strings.Contains(style, "stroke:#808080;stroke-width:0.25")
}

// pathBox is the bounding box of a path's points (arcs widened by their
// radius) under m, and its straight segments when it has only those (nil
// when it has arcs or curves).
func pathBox(d string, m affine) ([4]float64, [][2][2]float64, bool) {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	var segs [][2][2]float64
	curved := false
	var last, start [2]float64 // in canvas coordinates
	var at [2]float64          // the current point in the path's own
	add := func(x, y, r float64) {
		x, y = m.apply(x, y)
		b[0], b[1] = math.Min(b[0], x-r), math.Min(b[1], y-r)
		b[2], b[3] = math.Max(b[2], x+r), math.Max(b[3], y+r)
	}
	var cmd byte
	var nums []float64
	flush := func() {
		switch cmd {
		case 'M', 'L':
			for i := 0; i+1 < len(nums); i += 2 {
				add(nums[i], nums[i+1], 0)
				at = [2]float64{nums[i], nums[i+1]}
				x, y := m.apply(nums[i], nums[i+1])
				if cmd == 'L' || i > 0 {
					segs = append(segs, [2][2]float64{last, {x, y}})
				} else {
					start = [2]float64{x, y}
				}
				last = [2]float64{x, y}
			}
		case 'Q', 'C':
			curved = true
			for i := 0; i+1 < len(nums); i += 2 {
				add(nums[i], nums[i+1], 0)
				at = [2]float64{nums[i], nums[i+1]}
			}
		case 'A':
			// vgsvg draws a circle as two half arcs, each between two
			// ends of a diameter: the circle is its centre widened by its
			// radius. Other arcs are their ends widened by theirs.
			curved = true
			for i := 0; i+6 < len(nums); i += 7 {
				r, x, y := nums[i], nums[i+5], nums[i+6]
				if math.Abs(math.Hypot(x-at[0], y-at[1])-2*r) < 1e-3*r {
					add((x+at[0])/2, (y+at[1])/2, r)
				} else {
					add(x, y, r)
				}
				at = [2]float64{x, y}
			}
		case 'Z':
			segs = append(segs, [2][2]float64{last, start})
			last = start
		}
		nums = nums[:0]
	}
	f := strings.FieldsFunc(d, func(r rune) bool { return r == ',' || r == ' ' })
	for _, tok := range f {
		for tok != "" {
			if c := tok[0]; c >= 'A' && c <= 'Z' {
				flush()
				cmd = c
				tok = tok[1:]
				continue
			}
			end := len(tok)
			for i := 1; i < len(tok); i++ {
				if c := tok[i]; c >= 'A' && c <= 'Z' && c != 'E' {
					end = i
					break
				}
			}
			if v, err := strconv.ParseFloat(tok[:end], 64); err == nil {
				nums = append(nums, v)
			}
			tok = tok[end:]
		}
	}
	flush()
	if curved {
		segs = nil
	}
	return b, segs, b[0] <= b[2]
}

// Margin is the room, in points, a text keeps from the canvas's edges: a
// label flush with the edge reads as cut off.
const Margin = 2.0

// Problems lists what makes the picture unreadable: texts whose boxes
// overlap by more than slack points; texts leaving the canvas by more than
// slack or coming closer than Margin to its edge; data marks leaving the
// canvas by more than slack; texts lying on a data mark or within slack
// of it (a text wholly inside a filled mark, a cell's label, is meant to
// be there; axes, ticks and grid lines are no data); and data marks drawn
// before a legend frame that lie under it or come within slack of it (a
// legend set against a bar's end reads as covering it).
func (p *Picture) Problems(slack float64) []string {
	var out []string
	var legends []Mark
	for _, m := range p.Marks {
		if m.Legend {
			legends = append(legends, m)
		}
	}
	// inLegend is whether a box lies within a legend frame: a legend's
	// own texts and thumbnails.
	inLegend := func(b [4]float64) bool {
		for _, l := range legends {
			if b[0] >= l.Box[0]-slack && b[1] >= l.Box[1]-slack && b[2] <= l.Box[2]+slack && b[3] <= l.Box[3]+slack {
				return true
			}
		}
		return false
	}
	for i, t := range p.Texts {
		if strings.TrimSpace(t.S) == "" {
			continue
		}
		for _, c := range t.Box {
			if c[0] < -slack || c[1] < -slack || c[0] > p.W+slack || c[1] > p.H+slack {
				out = append(out, fmt.Sprintf("text %q leaves the %gx%g canvas (corner %.1f,%.1f)", t.S, p.W, p.H, c[0], c[1]))
				break
			}
			if c[0] < Margin || c[1] < Margin || c[0] > p.W-Margin || c[1] > p.H-Margin {
				out = append(out, fmt.Sprintf("text %q runs to the edge of the %gx%g canvas, closer than %g (corner %.1f,%.1f)", t.S, p.W, p.H, Margin, c[0], c[1]))
				break
			}
		}
		for _, u := range p.Texts[i+1:] {
			if strings.TrimSpace(u.S) != "" && overlap(sh(t.Box, slack), sh(u.Box, slack)) {
				out = append(out, fmt.Sprintf("texts %q and %q overlap", t.S, u.S))
			}
		}
		tb := bounds(t.Box)
		if inLegend(tb) {
			continue
		}
		in := sh(t.Box, -slack)
		for _, m := range p.Marks {
			if m.Legend || m.Guide || inLegend(m.Box) || !m.hits(in) {
				continue
			}
			if m.Segs == nil && tb[0] >= m.Box[0]-slack && tb[1] >= m.Box[1]-slack && tb[2] <= m.Box[2]+slack && tb[3] <= m.Box[3]+slack {
				continue // a label inside its cell or bar
			}
			out = append(out, fmt.Sprintf("text %q lies on a mark at %.0f,%.0f-%.0f,%.0f", t.S, m.Box[0], m.Box[1], m.Box[2], m.Box[3]))
			break
		}
	}
	for _, m := range p.Marks {
		if m.Legend || m.Guide {
			continue
		}
		if m.Box[0] < -slack || m.Box[1] < -slack || m.Box[2] > p.W+slack || m.Box[3] > p.H+slack {
			out = append(out, fmt.Sprintf("a mark at %.0f,%.0f-%.0f,%.0f leaves the %gx%g canvas", m.Box[0], m.Box[1], m.Box[2], m.Box[3], p.W, p.H))
		}
	}
	for _, l := range legends {
		in := [4][2]float64{{l.Box[0] - slack, l.Box[1] - slack}, {l.Box[2] + slack, l.Box[1] - slack}, {l.Box[2] + slack, l.Box[3] + slack}, {l.Box[0] - slack, l.Box[3] + slack}}
		for _, m := range p.Marks {
			if m.Order < l.Order && !m.Legend && !m.Guide && m.hits(in[:]) {
				out = append(out, fmt.Sprintf("legend at %.0f,%.0f-%.0f,%.0f covers a mark at %.0f,%.0f-%.0f,%.0f", l.Box[0], l.Box[1], l.Box[2], l.Box[3], m.Box[0], m.Box[1], m.Box[2], m.Box[3]))
				break
			}
		}
	}
	return out
}

// hits is whether the mark reaches into the convex polygon q: one of its
// segments crosses it, or, for a filled or curved mark, its bounding box
// does.
func (m Mark) hits(q [][2]float64) bool {
	if m.Segs != nil {
		for _, s := range m.Segs {
			if overlap(s[:], q) {
				return true
			}
		}
		return false
	}
	b := m.Box
	return overlap([][2]float64{{b[0], b[1]}, {b[2], b[1]}, {b[2], b[3]}, {b[0], b[3]}}, q)
}

// bounds is the axis-aligned bounding box (x0, y0, x1, y1) of a box.
func bounds(q [4][2]float64) [4]float64 {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, c := range q {
		b[0], b[1] = math.Min(b[0], c[0]), math.Min(b[1], c[1])
		b[2], b[3] = math.Max(b[2], c[0]), math.Max(b[3], c[1])
	}
	return b
}

// shrink moves each corner of a box toward its centre by d.
func shrink(b [4][2]float64, d float64) [4][2]float64 {
	var cx, cy float64
	for _, c := range b {
		cx += c[0] / 4
		cy += c[1] / 4
	}
	for i, c := range b {
		dx, dy := cx-c[0], cy-c[1]
		n := math.Hypot(dx, dy)
		if n > 2*d {
			b[i] = [2]float64{c[0] + dx/n*d, c[1] + dy/n*d}
		} else {
			b[i] = [2]float64{cx, cy}
		}
	}
	return b
}

// overlap is whether two convex polygons (a segment is one of two
// corners) intersect: no separating axis among their edges' normals.
func overlap(a, b [][2]float64) bool {
	for _, q := range [][][2]float64{a, b} {
		for i := range q {
			j := (i + 1) % len(q)
			nx, ny := q[j][1]-q[i][1], q[i][0]-q[j][0]
			amin, amax := project(a, nx, ny)
			bmin, bmax := project(b, nx, ny)
			if amax <= bmin || bmax <= amin {
				return false
			}
		}
	}
	return true
}

func project(q [][2]float64, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range q {
		v := c[0]*nx + c[1]*ny
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// sh is shrink as a polygon.
func sh(b [4][2]float64, d float64) [][2]float64 {
	s := shrink(b, d)
	return s[:]
}
