package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
)

// sweepTarget picks the (simulator, condition) a sweep figure draws: the
// pair with the most distinct settings among the groups keep selects
// (scored, non-empty), at least two; ties go to more scored moments, then
// to the smaller name. setting gives a group's position on the swept axis.
func (r *Report) sweepTarget(keep func(groupKey) bool, setting func(groupKey) int) (sim, cond string, settings map[int]*group) {
	type pair struct{ sim, cond string }
	found := map[pair]map[int]*group{}
	for k, g := range r.groups {
		if g.moments == 0 || !keep(k) {
			continue
		}
		pk := pair{k.sim, k.cond}
		if found[pk] == nil {
			found[pk] = map[int]*group{}
		}
		found[pk][setting(k)] = g
	}
	pairs := make([]pair, 0, len(found))
	for p := range found {
		pairs = append(pairs, p)
	}
	moments := func(p pair) int {
		n := 0
		for _, g := range found[p] {
			n += g.moments
		}
		return n
	}
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if la, lb := len(found[a]), len(found[b]); la != lb {
			return la > lb
		}
		if ma, mb := moments(a), moments(b); ma != mb {
			return ma > mb
		}
		if a.sim != b.sim {
			return a.sim < b.sim
		}
		return a.cond < b.cond
	})
	if len(pairs) == 0 || len(found[pairs[0]]) < 2 {
		return "", "", nil
	}
	return pairs[0].sim, pairs[0].cond, found[pairs[0]]
}

// sweepView is one view of a sweep: its result and how many moments each
// setting scored.
type sweepView struct {
	name    string
	res     analysis.SweepResult
	moments map[int]int
}

func sweepOf(name string, settings map[int]*group, anchor int, pick func(*group) []analysis.Outcomes) (*sweepView, error) {
	in := map[int][]analysis.Outcomes{}
	mom := map[int]int{}
	for s, g := range settings {
		o := pick(g)
		n := analysis.Total(o)
		if n == 0 {
			return nil, nil
		}
		in[s], mom[s] = o, n
	}
	res, err := analysis.Sweep(in, anchor)
	if err != nil {
		return nil, err
	}
	return &sweepView{name: name, res: res, moments: mom}, nil
}

func (v *sweepView) addRows(t *table, axis string) {
	holm, m := v.holm()
	for i, pt := range v.res.Points {
		a, d := pt.Accuracy.Accuracy, pt.VsAnchor.Test
		t.add(v.name, axis, strconv.Itoa(pt.Setting), f3(a.Mean), f3(a.Lo), f3(a.Hi), strconv.Itoa(a.N), strconv.Itoa(v.moments[pt.Setting]),
			s3(d.MeanDiff), s3(d.CI.Lo), s3(d.CI.Hi), f2(d.T), pval(d.P), pval(holm[i]), strconv.Itoa(m))
	}
}

// holm returns the Holm-adjusted p of each point's paired test against the
// anchor, over the view's tests (every setting but the anchor, whose test
// is undefined), and how many tests the view holds.
func (v *sweepView) holm() ([]float64, int) {
	ps := make([]float64, len(v.res.Points))
	m := 0
	for i, pt := range v.res.Points {
		ps[i] = math.NaN()
		if pt.Setting != v.res.Anchor {
			ps[i] = pt.VsAnchor.Test.P
			if !math.IsNaN(ps[i]) {
				m++
			}
		}
	}
	return analysis.Holm(ps), m
}

// holmAt is the Holm-adjusted p of the view's test at setting.
func (v *sweepView) holmAt(setting int) float64 {
	holm, _ := v.holm()
	for i, pt := range v.res.Points {
		if pt.Setting == setting {
			return holm[i]
		}
	}
	return math.NaN()
}

var sweepHeader = []string{"view", "axis", "setting", "accuracy", "ci_lo", "ci_hi", "developers", "moments", "diff_vs_anchor", "diff_lo", "diff_hi", "t", "p", "p_holm", "tests"}

// sweepPanel draws one view: accuracy with intervals at each setting,
// joined by a line, the anchor drawn apart as an open diamond. x gives a
// setting's position; labels its tick.
func sweepPanel(title, xlabel string, v *sweepView, x func(int) float64, label func(int) string) (*plot.Plot, error) {
	p := newPlot(title, xlabel, "macro accuracy (95% t interval)")
	var line plotter.XYs
	var rest, anchor []interval
	var rpos, apos []float64
	var ticks []plot.Tick
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range v.res.Points {
		a := pt.Accuracy.Accuracy
		ticks = append(ticks, plot.Tick{Value: x(pt.Setting), Label: label(pt.Setting)})
		for _, b := range []float64{a.Lo, a.Hi, a.Mean} {
			if !math.IsNaN(b) {
				lo, hi = min(lo, b), max(hi, b)
			}
		}
		if pt.Setting == v.res.Anchor {
			anchor, apos = append(anchor, macroInterval(a)), append(apos, x(pt.Setting))
			continue
		}
		line = append(line, plotter.XY{X: x(pt.Setting), Y: a.Mean})
		rest, rpos = append(rest, macroInterval(a)), append(rpos, x(pt.Setting))
	}
	if len(line) > 1 {
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.LineStyle.Color = colNoProfile
		l.LineStyle.Width = vg.Points(1.2)
		p.Add(l)
	}
	s, err := errDots(p, rpos, rest, false, colNoProfile, draw.CircleGlyph{}, vg.Points(3))
	if err != nil {
		return nil, err
	}
	a, err := errDots(p, apos, anchor, false, colAnchor, draw.RingGlyph{}, vg.Points(5))
	if err != nil {
		return nil, err
	}
	if a != nil {
		a.GlyphStyle.Shape = diamond{}
		a.GlyphStyle.Radius = vg.Points(5)
		p.Legend.Add("anchor "+label(v.res.Anchor), a)
	}
	if s != nil {
		p.Legend.Add("sweep", s)
	}
	p.Legend.Top = true
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	pad := (hi - lo) * 0.25
	p.Y.Min, p.Y.Max = lo-0.02, hi+pad+0.02
	p.Add(plotter.NewGrid())
	return p, nil
}

// diamond is an open diamond glyph: the anchor setting.
type diamond struct{}

func (diamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius
	ls := draw.LineStyle{Color: sty.Color, Width: vg.Points(1.5)}
	c.StrokeLines(ls, []vg.Point{{X: pt.X, Y: pt.Y + r}, {X: pt.X + r, Y: pt.Y}, {X: pt.X, Y: pt.Y - r}, {X: pt.X - r, Y: pt.Y}, {X: pt.X, Y: pt.Y + r}})
}

// anchorMean is the macro accuracy at the sweep's anchor.
func anchorMean(res analysis.SweepResult) float64 {
	for _, pt := range res.Points {
		if pt.Setting == res.Anchor {
			return pt.Accuracy.Accuracy.Mean
		}
	}
	return math.NaN()
}

func peakMean(res analysis.SweepResult) float64 {
	for _, pt := range res.Points {
		if pt.Setting == res.Peak {
			return pt.Accuracy.Accuracy.Mean
		}
	}
	return math.NaN()
}

func (r *Report) contextScaling() (*figure, error) {
	sim, cond, settings := r.sweepTarget(func(k groupKey) bool { return k.k == r.anchorK }, func(k groupKey) int { return k.n })
	if settings == nil || settings[r.anchorN] == nil {
		return nil, missing("context-scaling", "no context sweep (one simulator at two or more live windows N, K = %d, including N = %d): "+
			"run ub generate --experiment with a [[sweep]] over window_n, then ub judge", r.anchorK, r.anchorN)
	}
	all, err := sweepOf("all moments", settings, r.anchorN, func(g *group) []analysis.Outcomes { return g.outcomes })
	if err != nil {
		return nil, err
	}
	dose, err := sweepOf("constant dose", settings, r.anchorN, func(g *group) []analysis.Outcomes { return g.dose })
	if err != nil {
		return nil, err
	}
	f := &figure{}
	f.table.header = sweepHeader
	views := []*sweepView{all}
	if dose != nil {
		views = append(views, dose)
	}
	var plots []*plot.Plot
	var caps []string
	for _, v := range views {
		v.addRows(&f.table, "N")
		n := v.moments[r.anchorN]
		title := fmt.Sprintf("%s (%d moments)", v.name, n)
		if v.name == "constant dose" {
			title = fmt.Sprintf("constant dose: >= 10 prior turns (%d moments)", n)
		}
		p, err := sweepPanel(title, "live-session turns N", v, func(s int) float64 { return float64(s) }, strconv.Itoa)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
		caps = append(caps, r.sweepCaptionN(v))
	}
	f.pic = panels(plots, 10*vg.Inch, 4*vg.Inch)
	f.caption = fmt.Sprintf("%s, %s, K = %d: accuracy against the last N turns of the live session; the open diamond is the N = %d window every leaderboard row is scored at. ",
		sim, cond, r.anchorK, r.anchorN) + strings.Join(caps, ". ") + ". The peak is read off the data it is tested on, so treat its location as approximate."
	return f, nil
}

func (r *Report) sweepCaptionN(v *sweepView) string {
	res := v.res
	t := res.PeakVsAnchor.Test
	_, m := v.holm()
	return fmt.Sprintf("%s: r(log N, accuracy) = %s; peak N = %d at %s vs %s at N = %d, paired %s (95%% CI %s to %s, t = %s, p = %s; Holm-adjusted over the view's %d tests against N = %d, p = %s)",
		v.name, s2(res.LogR.R), res.Peak, f3(peakMean(res)), f3(anchorMean(res)), res.Anchor,
		s3(t.MeanDiff), s3(t.CI.Lo), s3(t.CI.Hi), f2(t.T), pval(t.P), m, res.Anchor, pval(v.holmAt(res.Peak)))
}

func (r *Report) historySweep() (*figure, error) {
	sim, cond, settings := r.sweepTarget(func(k groupKey) bool { return k.n == r.anchorN }, func(k groupKey) int { return k.k })
	if settings == nil || settings[0] == nil {
		return nil, missing("history-sweep", "no generations with history_k > 0 at N = %d (with K = 0 to compare): "+
			"run ub generate --experiment with a [[sweep]] over history_k, then ub judge", r.anchorN)
	}
	hist, err := sweepOf(fmt.Sprintf("history at N = %d", r.anchorN), settings, 0, func(g *group) []analysis.Outcomes { return g.outcomes })
	if err != nil {
		return nil, err
	}
	// The substitution test: the same simulator and condition at the
	// smallest other live window with K = 0 and K = 8 or 64, on those
	// settings only (analysis.SubstitutionK).
	var sub *sweepView
	subN := 0
	byN := map[int]map[int]*group{}
	for k, g := range r.groups {
		if k.sim == sim && k.cond == cond && k.n != r.anchorN && g.moments > 0 &&
			(k.k == 0 || slices.Contains(analysis.SubstitutionK, k.k)) {
			if byN[k.n] == nil {
				byN[k.n] = map[int]*group{}
			}
			byN[k.n][k.k] = g
		}
	}
	ns := make([]int, 0, len(byN))
	for n := range byN {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		if byN[n][0] != nil && len(byN[n]) >= 2 {
			subN = n
			if sub, err = sweepOf(fmt.Sprintf("substitution at N = %d", n), byN[n], 0, func(g *group) []analysis.Outcomes { return g.outcomes }); err != nil {
				return nil, err
			}
			break
		}
	}
	f := &figure{}
	f.table.header = sweepHeader
	views := []*sweepView{hist}
	if sub != nil {
		views = append(views, sub)
	}
	var plots []*plot.Plot
	var caps []string
	for _, v := range views {
		v.addRows(&f.table, "K")
		keys := make([]int, len(v.res.Points))
		for i, pt := range v.res.Points {
			keys[i] = pt.Setting
		}
		x := func(s int) float64 { return float64(sort.SearchInts(keys, s)) }
		p, err := sweepPanel(v.name, "history messages K", v, x, strconv.Itoa)
		if err != nil {
			return nil, err
		}
		p.X.Min, p.X.Max = -0.5, float64(len(keys))-0.5
		plots = append(plots, p)
		caps = append(caps, historyCaption(v))
	}
	f.pic = panels(plots, 10*vg.Inch, 4*vg.Inch)
	c := fmt.Sprintf("%s, %s: the developer's K most recent messages from earlier sessions prepended to the live window; K = 0 (open diamond) is the run without history. ", sim, cond)
	if sub == nil {
		c += "No substitution test (K = 8 or 64 against K = 0 at a shorter live window) in this workspace. "
	} else {
		c += fmt.Sprintf("The substitution test repeats K > 0 with the live window cut to N = %d. ", subN)
	}
	f.caption = c + strings.Join(caps, ". ") + "."
	return f, nil
}

// historyCaption gives a history view's correlation of ln(1 + K) with
// accuracy (K = 0 has no logarithm) and each K against K = 0.
func historyCaption(v *sweepView) string {
	var x, y []float64
	var diffs []string
	for _, pt := range v.res.Points {
		x = append(x, math.Log1p(float64(pt.Setting)))
		y = append(y, pt.Accuracy.Accuracy.Mean)
		if pt.Setting != v.res.Anchor {
			t := pt.VsAnchor.Test
			diffs = append(diffs, fmt.Sprintf("K = %d %s (t = %s, p = %s, Holm %s)", pt.Setting, s3(t.MeanDiff), f2(t.T), pval(t.P), pval(v.holmAt(pt.Setting))))
		}
	}
	rc, _ := analysis.Pearson(x, y)
	_, m := v.holm()
	return fmt.Sprintf("%s: r(ln(1 + K), accuracy) = %s over %d levels; paired against K = 0 (%d tests, Holm-adjusted over them): %s", v.name, s2(rc.R), rc.N, m, strings.Join(diffs, ", "))
}

// contextHeatmap draws the N x K surface. In turn: it groups the outcomes
// of every (simulator, condition) by cell and picks the pair with the most
// cells spanning two N and two K; keeps the complete grid (the N rows
// with both ends of the K axis, the K columns every such row has);
// computes the surface (accuracy per cell, each row's K_hi - K_lo and the
// interaction) and its tests, Holm-adjusted as one family; fills the
// table; and draws the heatmap with its caption.
func (r *Report) contextHeatmap() (*figure, error) {
	type pair = struct{ sim, cond string }
	cells := map[pair]map[analysis.Cell][]analysis.Outcomes{}
	for k, g := range r.groups {
		if g.moments == 0 {
			continue
		}
		p := pair{k.sim, k.cond}
		if cells[p] == nil {
			cells[p] = map[analysis.Cell][]analysis.Outcomes{}
		}
		cells[p][analysis.Cell{N: k.n, K: k.k}] = g.outcomes
	}
	// The pair with the most cells spanning at least two N and two K.
	var best pair
	bestN := 0
	for _, p := range sortedPairKeys(cells) {
		ns, ks := map[int]bool{}, map[int]bool{}
		for c := range cells[p] {
			ns[c.N], ks[c.K] = true, true
		}
		if len(ns) >= 2 && len(ks) >= 2 && len(cells[p]) > bestN {
			best, bestN = p, len(cells[p])
		}
	}
	if bestN == 0 {
		return nil, missing("context-heatmap", "no N x K surface (one simulator at two or more live windows N, each with two or more history lengths K): "+
			"run ub generate --experiment with a [[sweep]] over window_n and history_k, then ub judge")
	}
	all := cells[best]
	kLo, kHi := math.MaxInt, math.MinInt
	for c := range all {
		kLo, kHi = min(kLo, c.K), max(kHi, c.K)
	}
	// The complete grid: the N rows that have both ends of the K axis, and
	// the K columns every such row has (a history sweep at one N or a
	// context sweep at one K does not make a row or column of its own).
	rowsN := map[int]bool{}
	for c := range all {
		if all[analysis.Cell{N: c.N, K: kLo}] != nil && all[analysis.Cell{N: c.N, K: kHi}] != nil {
			rowsN[c.N] = true
		}
	}
	colsK := map[int]int{}
	for c := range all {
		if rowsN[c.N] {
			colsK[c.K]++
		}
	}
	use := map[analysis.Cell][]analysis.Outcomes{}
	for c, o := range all {
		if rowsN[c.N] && colsK[c.K] == len(rowsN) {
			use[c] = o
		}
	}
	sf, err := analysis.Surface(use)
	if err != nil {
		return nil, missing("context-heatmap", "the surface of %s %s is incomplete (%v): run ub generate --experiment with the missing cells", best.sim, best.cond, err)
	}
	var ns, ks []int
	nseen, kseen := map[int]bool{}, map[int]bool{}
	acc := map[analysis.Cell]analysis.Interval{}
	for _, c := range sf.Cells {
		acc[c.Cell] = c.Accuracy.Accuracy
		if !nseen[c.N] {
			nseen[c.N] = true
			ns = append(ns, c.N)
		}
		if !kseen[c.K] {
			kseen[c.K] = true
			ks = append(ks, c.K)
		}
	}
	sort.Ints(ks)
	f := &figure{}
	f.table.header = []string{"kind", "n", "k", "value", "ci_lo", "ci_hi", "t", "p", "developers", "p_holm", "tests"}
	// The surface's tests, one family: each N's K_hi - K_lo and the
	// interaction.
	var sps []float64
	for _, row := range sf.Rows {
		sps = append(sps, row.History.Test.P)
	}
	sps = append(sps, sf.Interaction.Test.P)
	sholm := analysis.Holm(sps)
	stests := 0
	for _, p := range sps {
		if !math.IsNaN(p) {
			stests++
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var bestCell analysis.Cell
	bestAcc := math.Inf(-1)
	for _, c := range sf.Cells {
		a := c.Accuracy.Accuracy
		f.table.add("cell", strconv.Itoa(c.N), strconv.Itoa(c.K), f3(a.Mean), f3(a.Lo), f3(a.Hi), "", "", strconv.Itoa(a.N), "", "")
		lo, hi = min(lo, a.Mean), max(hi, a.Mean)
		if a.Mean > bestAcc {
			bestAcc, bestCell = a.Mean, c.Cell
		}
	}
	var rowNotes []string
	for i, row := range sf.Rows {
		t := row.History.Test
		f.table.add(fmt.Sprintf("K%d-K%d", sf.KHi, sf.KLo), strconv.Itoa(row.N), "", s3(t.MeanDiff), s3(t.CI.Lo), s3(t.CI.Hi), f2(t.T), pval(t.P),
			strconv.Itoa(len(row.History.Developers)), pval(sholm[i]), strconv.Itoa(stests))
		rowNotes = append(rowNotes, fmt.Sprintf("N = %d %s (t = %s, Holm p = %s)", row.N, s3(t.MeanDiff), f2(t.T), pval(sholm[i])))
	}
	it := sf.Interaction.Test
	f.table.add("interaction", "", "", s3(it.MeanDiff), s3(it.CI.Lo), s3(it.CI.Hi), f2(it.T), pval(it.P), strconv.Itoa(len(sf.Interaction.Developers)),
		pval(sholm[len(sholm)-1]), strconv.Itoa(stests))

	colLabels := make([]string, len(ks))
	for i, k := range ks {
		colLabels[i] = "K = " + strconv.Itoa(k)
	}
	rowLabels := make([]string, len(ns))
	for i, n := range ns {
		rowLabels[len(ns)-1-i] = "N = " + strconv.Itoa(n)
	}
	cellAt := func(c, rr int) (analysis.Interval, bool) {
		a, ok := acc[analysis.Cell{N: ns[len(ns)-1-rr], K: ks[c]}]
		return a, ok
	}
	p := newPlot(fmt.Sprintf("Macro accuracy over live window N and history K (%s, %s)", best.sim, best.cond), "history messages K", "live-session turns N")
	p.Add(&cellGrid{cols: len(ks), rows: len(ns), size: vg.Points(11),
		fill: func(c, rr int) (color.Color, bool) {
			a, ok := cellAt(c, rr)
			if !ok {
				return colLight, true
			}
			return sequential(a.Mean, lo, hi), true
		},
		text: func(c, rr int) string {
			a, ok := cellAt(c, rr)
			if !ok {
				return "-"
			}
			return f3(a.Mean)
		},
	})
	p.NominalX(colLabels...)
	p.NominalY(rowLabels...)
	f.pic = single(p, 6*vg.Inch, vg.Length(1.2+0.55*float64(len(ns)))*vg.Inch)
	f.caption = fmt.Sprintf("%s, %s: every combination of live window N and history K; the brightest cell is N = %d, K = %d (%s). "+
		"Paired per developer, K = %d minus K = %d at each N: %s. Interaction (history's effect at N = %d minus at N = %d): %s (95%% CI %s to %s, t = %s, Holm p = %s). "+
		"The surface holds %d tests (each N's history effect and the interaction); Holm's adjustment is over them.",
		best.sim, best.cond, bestCell.N, bestCell.K, f3(bestAcc), sf.KHi, sf.KLo, strings.Join(rowNotes, ", "),
		sf.NLo, sf.NHi, s3(it.MeanDiff), s3(it.CI.Lo), s3(it.CI.Hi), f2(it.T), pval(sholm[len(sholm)-1]), stests)
	return f, nil
}

func sortedPairKeys[V any](m map[struct{ sim, cond string }]V) []struct{ sim, cond string } {
	out := make([]struct{ sim, cond string }, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].sim != out[j].sim {
			return out[i].sim < out[j].sim
		}
		return out[i].cond < out[j].cond
	})
	return out
}
