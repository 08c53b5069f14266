package reports

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// moveShares returns each real move's share of the scored points, and the
// moves sorted by name.
func (r *Report) moveShares() (map[string]float64, []string) {
	count := map[string]int{}
	n := 0
	for _, p := range r.st.Points {
		if scorable(p.Real) {
			count[p.Real]++
			n++
		}
	}
	share := map[string]float64{}
	for m, c := range count {
		share[m] = float64(c) / float64(n)
	}
	return share, sortedKeysOf(count)
}

func (r *Report) moveBreakdown() (*figure, error) {
	type row struct {
		sim   string
		moves map[string]analysis.MoveAgreement
	}
	var rows []row
	for _, x := range r.ranking() {
		with, without := r.anchor(x.sim, queries.CondProfile), r.anchor(x.sim, queries.CondNoProfile)
		if with == nil || without == nil {
			continue
		}
		m := map[string]analysis.MoveAgreement{}
		for _, a := range analysis.MoveBreakdown(with, without) {
			m[a.Move] = a
		}
		rows = append(rows, row{x.sim, m})
	}
	if len(rows) == 0 {
		return nil, missing("move-breakdown", "no simulator has labelled generations both with and without profile at %s: run ub generate with both conditions, then ub judge", r.anchorText())
	}
	share, moves := r.moveShares()
	f := &figure{}
	f.table.header = []string{"simulator", "move", "share", "agree_without", "agree_with", "lift", "moments_without", "moments_with"}
	maxLift := 0.1
	for _, x := range rows {
		for _, mv := range moves {
			a, ok := x.moves[mv]
			if !ok {
				continue
			}
			f.table.add(x.sim, mv, f3(share[mv]), f3(a.Without.P), f3(a.With.P), s3(a.Lift), strconv.Itoa(a.Without.N), strconv.Itoa(a.With.N))
			if !math.IsNaN(a.Lift) {
				maxLift = math.Max(maxLift, math.Abs(a.Lift))
			}
		}
	}
	cols := make([]string, len(moves))
	for i, mv := range moves {
		cols[i] = fmt.Sprintf("%s (%.0f%%)", mv, 100*share[mv])
	}
	names := make([]string, len(rows))
	for i, x := range rows {
		names[len(rows)-1-i] = x.sim
	}
	cell := func(c, rr int) (analysis.MoveAgreement, bool) {
		a, ok := rows[len(rows)-1-rr].moves[moves[c]]
		return a, ok
	}
	p := newPlot(fmt.Sprintf("Agree rate by the developer's real move: lift with profile / rate with profile (%s)", r.anchorText()), "real move (share of moments)", "")
	p.Add(&cellGrid{cols: len(moves), rows: len(rows),
		fill: func(c, rr int) (color.Color, bool) {
			a, ok := cell(c, rr)
			if !ok {
				return nil, false
			}
			return diverging(a.Lift, maxLift), true
		},
		text: func(c, rr int) string {
			a, _ := cell(c, rr)
			return s2(a.Lift) + " / " + f2(a.With.P)
		},
	})
	p.NominalX(cols...)
	p.NominalY(names...)
	f.pic = single(p, 7*vg.Inch, vg.Length(1.2+0.38*float64(len(rows)))*vg.Inch)
	var allUp []string
	for _, x := range rows {
		up := true
		for _, mv := range moves {
			if a, ok := x.moves[mv]; ok && !(a.Lift > 0) {
				up = false
			}
		}
		if up {
			allUp = append(allUp, x.sim)
		}
	}
	var b strings.Builder
	b.WriteString("For each real move, the share of those moments where the simulator made the same move (its recall), with profile, and the change from without profile (blue up, vermilion down). Columns are weighted by how often developers make each move")
	if len(allUp) > 0 {
		fmt.Fprintf(&b, "; improving on every move with a profile: %s", strings.Join(allUp, ", "))
	}
	b.WriteString(".")
	f.caption = b.String()
	return f, nil
}

// ablationTerse draws the terse-only ablation. In turn: it picks the
// simulators with a terse condition, in leaderboard order; computes for
// each condition (no profile, terse, profile) the spurious-inquiry and
// critical-recall rates with their intervals and fills the table; draws
// one panel per rate; and writes the caption, with a note per simulator
// on how each rate moves across the conditions (and the recovery of the
// profile's effect, when it has all three).
func (r *Report) ablationTerse() (*figure, error) {
	var sims []string
	for _, x := range r.ranking() {
		if r.anchor(x.sim, queries.CondTerse) != nil {
			sims = append(sims, x.sim)
		}
	}
	for _, sim := range sortedStrings(r.simsWith(queries.CondTerse)) {
		found := false
		for _, s := range sims {
			found = found || s == sim
		}
		if !found {
			sims = append(sims, sim)
		}
	}
	if len(sims) == 0 {
		return nil, missing("ablation-terse", "no labelled generations in condition terse at %s: run ub generate with the terse-only prefix (condition terse), then ub judge", r.anchorText())
	}
	conds := []string{queries.CondNoProfile, queries.CondTerse, queries.CondProfile}
	f := &figure{}
	f.table.header = []string{"simulator", "condition", "accuracy", "ci_lo", "ci_hi", "spurious_inquiry", "spurious_inquiry_macro", "si_lo", "si_hi",
		"critical_recall", "critical_recall_macro", "cr_lo", "cr_hi", "moments"}
	type stat struct{ si, cr analysis.MoveRate }
	stats := map[[2]string]stat{}
	var notes []string
	for _, sim := range sims {
		acc := map[string]float64{}
		for _, cond := range conds {
			o := r.anchor(sim, cond)
			if o == nil {
				continue
			}
			a := analysis.MacroAccuracy(o).Accuracy
			si, cr := analysis.SpuriousInquiry(o), analysis.CriticalRecall(o)
			stats[[2]string{sim, cond}] = stat{si, cr}
			acc[cond] = a.Mean
			f.table.add(sim, cond, f3(a.Mean), f3(a.Lo), f3(a.Hi), f3(si.Pooled.P), f3(si.Macro.Mean), f3(si.Macro.Lo), f3(si.Macro.Hi),
				f3(cr.Pooled.P), f3(cr.Macro.Mean), f3(cr.Macro.Lo), f3(cr.Macro.Hi), strconv.Itoa(analysis.Total(o)))
		}
		_, nok := acc[queries.CondNoProfile]
		_, tok := acc[queries.CondTerse]
		_, pok := acc[queries.CondProfile]
		note := fmt.Sprintf("%s: spurious inquiry %s", sim, rateChange(stats, sim, func(s stat) float64 { return s.si.Pooled.P }))
		note += fmt.Sprintf(", critical recall %s", rateChange(stats, sim, func(s stat) float64 { return s.cr.Pooled.P }))
		if nok && tok && pok {
			note += ", " + r.recoveryText(sim)
		}
		notes = append(notes, note)
	}
	mk := func(title string, pick func(stat) analysis.Interval) (*plot.Plot, error) {
		p := newPlot(title, "", "rate (macro over developers, 95% t interval)")
		p.NominalX(sims...)
		p.Y.Min, p.Y.Max = 0, 0
		for ci, cond := range conds {
			pos := make([]float64, len(sims))
			vals := make([]interval, len(sims))
			for i, sim := range sims {
				pos[i] = float64(i) + 0.27*float64(ci-1)
				s, ok := stats[[2]string{sim, cond}]
				if !ok {
					vals[i] = interval{math.NaN(), math.NaN(), math.NaN()}
					continue
				}
				vals[i] = macroInterval(pick(s))
				if !math.IsNaN(vals[i].hi) {
					p.Y.Max = math.Max(p.Y.Max, vals[i].hi)
				}
				p.Y.Max = math.Max(p.Y.Max, vals[i].v)
			}
			col := conditionColor(cond, ci)
			for i := range sims {
				if math.IsNaN(vals[i].v) {
					continue
				}
				l, err := plotter.NewLine(plotter.XYs{{X: pos[i], Y: 0}, {X: pos[i], Y: vals[i].v}})
				if err != nil {
					return nil, err
				}
				l.LineStyle.Color = col
				l.LineStyle.Width = vg.Points(10)
				p.Add(l)
			}
			s, err := errDots(p, pos, vals, false, colGrey, draw.CircleGlyph{}, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			if s != nil {
				sw, _ := plotter.NewScatter(plotter.XYs{{X: pos[0], Y: 0}})
				sw.GlyphStyle = draw.GlyphStyle{Color: col, Shape: draw.BoxGlyph{}, Radius: vg.Points(4)}
				p.Legend.Add(cond, sw)
			}
		}
		p.Y.Max = math.Min(1, p.Y.Max*1.3+0.02)
		p.X.Min, p.X.Max = -0.6, float64(len(sims))-0.4
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
		return p, nil
	}
	a, err := mk("Spurious inquiry: asks when the developer did not", func(s stat) analysis.Interval { return s.si.Macro })
	if err != nil {
		return nil, err
	}
	b, err := mk("Critical recall: objects when the developer did", func(s stat) analysis.Interval { return s.cr.Macro })
	if err != nil {
		return nil, err
	}
	f.pic = panels([]*plot.Plot{a, b}, 9*vg.Inch, 3.8*vg.Inch)
	f.caption = "The content-free terse-only prefix against no profile and the real profile (" + r.anchorText() + "). " +
		"Spurious inquiry = share of moments without a real question where the simulator asked; critical recall = share of real faults the simulator flagged (pooled rates below; bars are macro means). " +
		strings.Join(notes, "; ") + "."
	return f, nil
}

// rateChange prints a rate across the conditions a simulator has:
// "0.110 (noprofile) -> 0.030 (terse) -> 0.050 (profile)".
func rateChange[S any](stats map[[2]string]S, sim string, pick func(S) float64) string {
	var parts []string
	for _, cond := range []string{queries.CondNoProfile, queries.CondTerse, queries.CondProfile} {
		if s, ok := stats[[2]string{sim, cond}]; ok {
			parts = append(parts, fmt.Sprintf("%s (%s)", f3(pick(s)), cond))
		}
	}
	return strings.Join(parts, " -> ")
}

// simsWith returns the simulators with scored generations in cond at the
// anchor.
func (r *Report) simsWith(cond string) map[string]bool {
	out := map[string]bool{}
	for k, g := range r.groups {
		if k.cond == cond && k.n == r.anchorN && k.k == r.anchorK && g.moments > 0 {
			out[k.sim] = true
		}
	}
	return out
}
