package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// verbosity draws words per message. In turn: it measures the real
// developers' messages and each leaderboard simulator's in each condition
// (no profile, profile, terse); fills the table; draws one bar per
// simulator and condition with its interval, and the real developers'
// macro mean as a reference line; and writes the caption.
func (r *Report) verbosity() (*figure, error) {
	var real []analysis.Length
	for _, p := range r.st.Points {
		if p.Words >= 0 {
			real = append(real, analysis.Length{Developer: p.Developer, Words: p.Words})
		}
	}
	rank := r.ranking()
	conds := []string{queries.CondNoProfile, queries.CondProfile, queries.CondTerse}
	type cell struct {
		sim, cond string
		v         analysis.VerbosityStat
	}
	var cells []cell
	for _, x := range rank {
		for _, cond := range conds {
			if g := r.group(x.sim, cond, r.anchorN, r.anchorK); g != nil && len(g.lengthWords) > 0 {
				cells = append(cells, cell{x.sim, cond, analysis.VerbosityCounted(g.lengthWords, g.lengthDevs)})
			}
		}
	}
	if len(cells) == 0 {
		return nil, missing("verbosity", "no generations with text at %s: %s", r.anchorText(), hintGenerate)
	}
	rv := analysis.Verbosity(real)
	f := &figure{}
	f.table.header = []string{"simulator", "condition", "messages", "mean_words", "median_words", "macro_mean", "ci_lo", "ci_hi"}
	f.table.add("(real developers)", "", strconv.Itoa(rv.Messages), f1(rv.Mean), f1(rv.Median), f1(rv.Macro.Mean), f1(rv.Macro.Lo), f1(rv.Macro.Hi))
	for _, c := range cells {
		f.table.add(c.sim, c.cond, strconv.Itoa(c.v.Messages), f1(c.v.Mean), f1(c.v.Median), f1(c.v.Macro.Mean), f1(c.v.Macro.Lo), f1(c.v.Macro.Hi))
	}
	names := make([]string, len(rank))
	for i, x := range rank {
		names[len(rank)-1-i] = x.sim
	}
	p := newPlot(fmt.Sprintf("Words per message (%s)", r.anchorText()), "words per message (macro mean over developers, 95% t interval)", "")
	p.NominalY(names...)
	hi := rv.Mean
	present := map[string]bool{}
	for _, c := range cells {
		present[c.cond] = true
		hi = math.Max(hi, c.v.Macro.Hi)
	}
	var used []string
	for _, cond := range conds {
		if present[cond] {
			used = append(used, cond)
		}
	}
	p.Y.Min, p.Y.Max = -0.6, float64(len(rank))+0.6 // room for the legend
	width := 0.8 / float64(len(used))
	for ci, cond := range used {
		pos := make([]float64, 0, len(rank))
		vals := make([]interval, 0, len(rank))
		for i, x := range rank {
			for _, c := range cells {
				if c.sim == x.sim && c.cond == cond {
					pos = append(pos, float64(len(rank)-1-i)+0.4-width*(float64(ci)+0.5))
					vals = append(vals, macroInterval(c.v.Macro))
				}
			}
		}
		col := conditionColor(cond, ci)
		for i := range pos {
			l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: pos[i]}, {X: vals[i].v, Y: pos[i]}})
			if err != nil {
				return nil, err
			}
			l.LineStyle.Color = col
			l.LineStyle.Width = vg.Points(math.Min(9, 24*width))
			p.Add(l)
		}
		if _, err := errDots(p, pos, vals, true, colGrey, draw.CircleGlyph{}, vg.Points(1.2)); err != nil {
			return nil, err
		}
		sw, _ := plotter.NewScatter(plotter.XYs{{}})
		sw.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.BoxGlyph{}, Radius: vg.Points(4)}
		p.Legend.Add(cond, sw)
	}
	rl, err := refLine(p, rv.Macro.Mean, p.Y.Min, p.Y.Max, true, colAnchor, true)
	if err != nil {
		return nil, err
	}
	p.Legend.Add("real developers "+f1(rv.Macro.Mean), rl)
	p.Legend.Top = true
	p.X.Min, p.X.Max = 0, hi*1.15
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, vg.Length(1.4+0.5*float64(len(rank)))*vg.Inch)

	var terser []string
	for _, x := range rank {
		var w, wo *analysis.VerbosityStat
		for i := range cells {
			if cells[i].sim == x.sim && cells[i].cond == queries.CondProfile {
				w = &cells[i].v
			}
			if cells[i].sim == x.sim && cells[i].cond == queries.CondNoProfile {
				wo = &cells[i].v
			}
		}
		if w != nil && wo != nil && w.Mean < wo.Mean {
			terser = append(terser, x.sim)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Length of each generation in words (runs of non-space characters), by simulator and condition, against the real developers' messages at the same moments (mean %s, median %s words).",
		f1(rv.Mean), f1(rv.Median))
	if len(terser) > 0 {
		fmt.Fprintf(&b, " Terser with a profile than without: %d of %d simulators.", len(terser), len(rank))
	}
	f.caption = b.String()
	return f, nil
}
