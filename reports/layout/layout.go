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
// a legend frame, and its index in drawing order.
type Mark struct {
	Box    [4]float64
	Legend bool
	Order  int
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
				b, ok := pathBox(attr["d"], cur)
				if ok && !white(attr["style"]) {
					pic.Marks = append(pic.Marks, Mark{Box: b, Legend: strings.Contains(attr["style"], "stroke:"+LegendFrame), Order: order})
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

// pathBox is the bounding box of a path's points (arcs widened by their
// radius) under m.
func pathBox(d string, m affine) ([4]float64, bool) {
	b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	add := func(x, y, r float64) {
		x, y = m.apply(x, y)
		b[0], b[1] = math.Min(b[0], x-r), math.Min(b[1], y-r)
		b[2], b[3] = math.Max(b[2], x+r), math.Max(b[3], y+r)
	}
	var cmd byte
	var nums []float64
	flush := func() {
		switch cmd {
		case 'M', 'L', 'Q', 'C':
			for i := 0; i+1 < len(nums); i += 2 {
				add(nums[i], nums[i+1], 0)
			}
		case 'A':
			for i := 0; i+6 < len(nums); i += 7 {
				add(nums[i+5], nums[i+6], nums[i])
			}
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
	return b, b[0] <= b[2]
}

// Problems lists what makes the picture unreadable: texts whose boxes
// overlap by more than slack points, texts leaving the canvas by more than
// slack, and marks drawn before a legend frame that lie under it.
func (p *Picture) Problems(slack float64) []string {
	var out []string
	for i, t := range p.Texts {
		if strings.TrimSpace(t.S) == "" {
			continue
		}
		for _, c := range t.Box {
			if c[0] < -slack || c[1] < -slack || c[0] > p.W+slack || c[1] > p.H+slack {
				out = append(out, fmt.Sprintf("text %q leaves the %gx%g canvas (corner %.1f,%.1f)", t.S, p.W, p.H, c[0], c[1]))
				break
			}
		}
		for _, u := range p.Texts[i+1:] {
			if strings.TrimSpace(u.S) != "" && overlap(shrink(t.Box, slack), shrink(u.Box, slack)) {
				out = append(out, fmt.Sprintf("texts %q and %q overlap", t.S, u.S))
			}
		}
	}
	for _, l := range p.Marks {
		if !l.Legend {
			continue
		}
		in := [4]float64{l.Box[0] + slack, l.Box[1] + slack, l.Box[2] - slack, l.Box[3] - slack}
		for _, m := range p.Marks {
			if m.Order < l.Order && !m.Legend && m.Box[0] < in[2] && m.Box[2] > in[0] && m.Box[1] < in[3] && m.Box[3] > in[1] {
				out = append(out, fmt.Sprintf("legend at %.0f,%.0f-%.0f,%.0f covers a mark at %.0f,%.0f-%.0f,%.0f", l.Box[0], l.Box[1], l.Box[2], l.Box[3], m.Box[0], m.Box[1], m.Box[2], m.Box[3]))
				break
			}
		}
	}
	return out
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

// overlap is whether two convex quadrilaterals intersect (separating axes).
func overlap(a, b [4][2]float64) bool {
	for _, q := range [][4][2]float64{a, b} {
		for i := range q {
			j := (i + 1) % 4
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

func project(q [4][2]float64, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range q {
		v := c[0]*nx + c[1]*ny
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}
