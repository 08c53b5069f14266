package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

const hintGenerate = "run ub generate, then ub judge"

// ranked is a leaderboard row: a simulator's macro accuracy in both
// conditions at the anchor.
type ranked struct {
	sim             string
	without, with   *analysis.Macro
	nWithout, nWith *group
	sortKey         float64
}

// ranking returns the leaderboard simulators ranked by accuracy without
// profile (seed 000 ranks the baseline), those scored only with a profile
// after them by that accuracy; ties by name.
func (r *Report) ranking() []ranked {
	var out []ranked
	for _, sim := range r.leaderboardSims() {
		x := ranked{sim: sim, sortKey: math.Inf(-1)}
		if o := r.anchor(sim, queries.CondNoProfile); o != nil {
			m := analysis.MacroAccuracy(o)
			x.without, x.nWithout = &m, r.group(sim, queries.CondNoProfile, r.anchorN, r.anchorK)
			x.sortKey = m.Accuracy.Mean
		}
		if o := r.anchor(sim, queries.CondProfile); o != nil {
			m := analysis.MacroAccuracy(o)
			x.with, x.nWith = &m, r.group(sim, queries.CondProfile, r.anchorN, r.anchorK)
			if x.without == nil {
				x.sortKey = m.Accuracy.Mean - 10 // after every simulator with a baseline
			}
		}
		out = append(out, x)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].sortKey != out[j].sortKey {
			return out[i].sortKey > out[j].sortKey
		}
		return out[i].sim < out[j].sim
	})
	return out
}

// devCount is the n of a leaderboard row: the developers each condition's
// accuracy is the mean over, once when they are as many.
func devCount(without, with *analysis.Macro) string {
	var ns []string
	for _, m := range []*analysis.Macro{without, with} {
		if m != nil {
			ns = append(ns, strconv.Itoa(m.Accuracy.N))
		}
	}
	if len(ns) == 2 && ns[0] == ns[1] {
		ns = ns[:1]
	}
	return "(n = " + strings.Join(ns, "/") + ")"
}

func (r *Report) anchorText() string {
	return fmt.Sprintf("N = %d, K = %d", r.anchorN, r.anchorK)
}

// leaderboard draws the leaderboard figure. In turn: it ranks the
// simulators (without profile) and computes the chance and majority
// lines; fills the table with each simulator's macro accuracy per
// condition, its t and bootstrap intervals and counts; draws both
// conditions' intervals per simulator with the lines; and writes the
// caption and the trials' spread below it.
func (r *Report) leaderboard() (*figure, error) {
	rows := r.ranking()
	if len(rows) == 0 {
		return nil, missing("leaderboard", "no labelled generations with or without profile: %s", hintGenerate)
	}
	lines := analysis.LinesFromProfile(r.profileOutcomes(), r.realOutcomes())
	chance, major := lines.Chance, lines.Majority
	haveLines := chance.Line.N > 0
	seed := r.seedReading(lines)
	f := &figure{}
	f.table.header = []string{"rank", "simulator", "condition", "accuracy", "ci_lo", "ci_hi", "boot_lo", "boot_hi", "developers", "moments", "failed", "missing", "unlabelled", "top_cluster"}
	opts := r.bootOpts()
	names := make([]string, len(rows))
	pos := make([]float64, len(rows))
	var wo, wi []interval
	lo, hi := math.Inf(1), math.Inf(-1)
	if haveLines {
		lo, hi = min(chance.Line.Mean, major.Line.Mean), max(chance.Line.Mean, major.Line.Mean)
	}
	for i, x := range rows {
		names[len(rows)-1-i] = x.sim + " " + devCount(x.without, x.with)
		pos[i] = float64(len(rows) - 1 - i)
		add := func(cond string, m *analysis.Macro, g *group) interval {
			if m == nil {
				return interval{math.NaN(), math.NaN(), math.NaN()}
			}
			a := m.Accuracy
			bi := analysis.MacroBootstrap(*m, opts)
			f.table.add(strconv.Itoa(i+1), x.sim, cond, f3(a.Mean), f3(a.Lo), f3(a.Hi), f3(bi.Lo), f3(bi.Hi),
				strconv.Itoa(a.N), strconv.Itoa(g.moments), strconv.Itoa(g.failed), strconv.Itoa(g.missing), strconv.Itoa(g.unlabelled),
				inCluster(r.comparison(cond), x.sim))
			for _, v := range []float64{bi.Lo, bi.Hi, a.Mean} {
				if !math.IsNaN(v) {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			return interval{a.Mean, bi.Lo, bi.Hi}
		}
		wo = append(wo, add(queries.CondNoProfile, x.without, x.nWithout))
		wi = append(wi, add(queries.CondProfile, x.with, x.nWith))
	}
	for _, l := range []struct {
		name string
		iv   analysis.Interval
		vals []float64
	}{{"chance line", chance.Line, chanceValues(chance)}, {seedReadingName, seed.Line, chanceValues(seed)}, {"majority line", major.Line, majorityValues(major)}} {
		if !haveLines {
			break
		}
		bi := analysis.MeanBootstrap(l.vals, opts)
		f.table.add("", l.name, "", f3(l.iv.Mean), f3(l.iv.Lo), f3(l.iv.Hi), f3(bi.Lo), f3(bi.Hi), strconv.Itoa(l.iv.N), "", "", "", "", "")
	}

	p := newPlot(fmt.Sprintf("Next-action accuracy (%s, judge %s)", r.anchorText(), r.st.Judge), "macro accuracy over developers (95% developer bootstrap interval)", "")
	p.NominalY(names...)
	shift := func(d float64) []float64 {
		out := make([]float64, len(pos))
		for i := range pos {
			out[i] = pos[i] + d
		}
		return out
	}
	pad := 0.03
	p.X.Min, p.X.Max = math.Max(0, lo-pad), math.Min(1, hi+pad)
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4
	var cl, ml *plotter.Line
	if haveLines {
		var err error
		if cl, err = refLine(p, chance.Line.Mean, p.Y.Min, p.Y.Max, true, colGrey, true); err != nil {
			return nil, err
		}
		if ml, err = refLine(p, major.Line.Mean, p.Y.Min, p.Y.Max, true, colAnchor, true); err != nil {
			return nil, err
		}
	}
	s1, err := errDots(p, shift(0.14), wo, true, colNoProfile, draw.CircleGlyph{}, vg.Points(3.5))
	if err != nil {
		return nil, err
	}
	s2, err := errDots(p, shift(-0.14), wi, true, colProfile, draw.SquareGlyph{}, vg.Points(3.5))
	if err != nil {
		return nil, err
	}
	if s1 != nil {
		p.Legend.Add("without profile", s1)
	}
	if s2 != nil {
		p.Legend.Add("with profile", s2)
	}
	if haveLines {
		p.Legend.Add("chance line "+f3(chance.Line.Mean), cl)
		p.Legend.Add("majority line "+f3(major.Line.Mean), ml)
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	h := vg.Length(1.6+0.42*float64(len(rows))) * vg.Inch
	f.pic = single(p, 7*vg.Inch, h)

	var b strings.Builder
	fmt.Fprintf(&b, "Macro accuracy over %d developers at %s, ranked without profile, with the 95%% t interval (ci) and the 95%% developer bootstrap interval "+
		"(boot, drawn; B = %d, seed %d); n developers beside each (without/with profile where they differ). ", r.scoredDevelopers(), r.anchorText(), opts.B, opts.Seed)
	for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
		if c := r.comparison(cond); c.Top != "" || len(c.Small) > 0 {
			b.WriteString(clusterSentence(c, cond) + " ")
		}
	}
	if haveLines {
		r.linesCaption(&b, rows, lines)
		fmt.Fprintf(&b, " Beside the chance line, the seed's reading (row %q): the collision probability sum_m q_m^2 of the scored moments' own mix, "+
			"%s [%s, %s] (95%% t) over the same %d developers; it reads the mix off the moments it is scored on, which lifts it by about (1 - sum q^2) / n "+
			"per developer of n moments, and equals the chance line when the profile and scored mixes coincide.",
			seedReadingName, f3(seed.Line.Mean), f3(seed.Line.Lo), f3(seed.Line.Hi), seed.Line.N)
	} else {
		b.WriteString("No chance or majority line: no developer has labelled profile-session moments (the lines are formed from the profile sessions, " +
			"never from the moments they are scored on; run ub judge --target profile).")
	}
	f.caption = b.String()
	f.extra = r.trialSpreadMarkdown()
	return f, nil
}

func (r *Report) profileEffect() (*figure, error) {
	type row struct {
		sim  string
		p    analysis.Paired
		with float64
		wo   float64
	}
	var rows []row
	for _, sim := range r.leaderboardSims() {
		with, without := r.anchor(sim, queries.CondProfile), r.anchor(sim, queries.CondNoProfile)
		if with == nil || without == nil {
			continue
		}
		rows = append(rows, row{sim, analysis.PairedAccuracy(with, without),
			analysis.MacroAccuracy(with).Accuracy.Mean, analysis.MacroAccuracy(without).Accuracy.Mean})
	}
	if len(rows) == 0 {
		return nil, missing("profile-effect", "no simulator has labelled generations both with and without profile at %s: run ub generate with both conditions, then ub judge", r.anchorText())
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].p.Test.MeanDiff, rows[j].p.Test.MeanDiff
		if a != b && !math.IsNaN(a) && !math.IsNaN(b) {
			return a > b
		}
		return rows[i].sim < rows[j].sim
	})
	f := &figure{}
	f.table.header = []string{"simulator", "without", "with", "lift", "ci_lo", "ci_hi", "t", "p", "developers", "unpaired"}
	names := make([]string, len(rows))
	pos := make([]float64, len(rows))
	vals := make([]interval, len(rows))
	lo, hi := 0.0, 0.0
	for i, x := range rows {
		t := x.p.Test
		f.table.add(x.sim, f3(x.wo), f3(x.with), s3(t.MeanDiff), s3(t.CI.Lo), s3(t.CI.Hi), f2(t.T), pval(t.P),
			strconv.Itoa(len(x.p.Developers)), strconv.Itoa(len(x.p.Unpaired)))
		names[len(rows)-1-i] = x.sim
		pos[i] = float64(len(rows) - 1 - i)
		vals[i] = interval{t.MeanDiff, t.CI.Lo, t.CI.Hi}
		for _, v := range []float64{t.CI.Lo, t.CI.Hi, t.MeanDiff} {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	p := newPlot(fmt.Sprintf("Profile effect: with minus without, paired per developer (%s)", r.anchorText()), "accuracy with profile - without (95% t interval)", "")
	p.NominalY(names...)
	p.X.Min, p.X.Max = lo-0.02, hi+0.02
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4
	if err := bars(p, pos, vals, true, colProfile); err != nil {
		return nil, err
	}
	if _, err := refLine(p, 0, p.Y.Min, p.Y.Max, true, colGrey, false); err != nil {
		return nil, err
	}
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, vg.Length(1.3+0.38*float64(len(rows)))*vg.Inch)
	best, worst := rows[0], rows[len(rows)-1]
	f.caption = fmt.Sprintf("Per-developer paired difference in accuracy, with minus without profile, mean and 95%% t interval. "+
		"Largest lift: %s %s (%s to %s); smallest: %s %s. With n = %d developers, treat single lifts as suggestive.",
		best.sim, s3(best.p.Test.MeanDiff), f3(best.wo), f3(best.with), worst.sim, s3(worst.p.Test.MeanDiff), len(best.p.Developers))
	return f, nil
}

// bars draws a bar per category at pos (horizontal when horiz) with the
// interval as error bars.
func bars(p *plot.Plot, pos []float64, vals []interval, horiz bool, col interface {
	RGBA() (r, g, b, a uint32)
}) error {
	for i, v := range vals {
		if math.IsNaN(v.v) {
			continue
		}
		pts := plotter.XYs{{X: 0, Y: pos[i]}, {X: v.v, Y: pos[i]}}
		if !horiz {
			pts = plotter.XYs{{X: pos[i], Y: 0}, {X: pos[i], Y: v.v}}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.LineStyle.Color = col
		l.LineStyle.Width = vg.Points(9)
		p.Add(l)
	}
	_, err := errDots(p, pos, vals, horiz, colGrey, draw.CircleGlyph{}, vg.Points(1.5))
	return err
}

// effortOrder ranks reasoning-effort settings from least to most.
var effortOrder = map[string]int{"none": 0, "minimal": 1, "low": 2, "medium": 3, "high": 4, "xhigh": 5, "max": 6}

func effortRank(e string) int {
	if r, ok := effortOrder[e]; ok {
		return r
	}
	return 3
}

// reasoningEffort reads params.reasoning_effort of a simulator.
func reasoningEffort(params string) string {
	var m map[string]any
	if json.Unmarshal([]byte(params), &m) != nil {
		return ""
	}
	s, _ := m["reasoning_effort"].(string)
	return s
}

func (r *Report) effort() (*figure, error) {
	type variant struct{ sim, effort string }
	byModel := map[string][]variant{}
	for _, s := range r.st.Simulators {
		if e := reasoningEffort(s.Params); e != "" {
			key := s.Backend + " " + s.Model
			byModel[key] = append(byModel[key], variant{s.Name, e})
		}
	}
	f := &figure{}
	f.table.header = []string{"model", "condition", "low", "high", "low_effort", "high_effort", "acc_low", "acc_high", "diff", "ci_lo", "ci_hi", "t", "p", "developers", "tokens_out_low", "tokens_out_high"}
	var names []string
	var vals []interval
	var notes []string
	for _, model := range sortedKeysOf(byModel) {
		vs := byModel[model]
		sort.Slice(vs, func(i, j int) bool {
			if a, b := effortRank(vs[i].effort), effortRank(vs[j].effort); a != b {
				return a < b
			}
			return vs[i].sim < vs[j].sim
		})
		lo, hi := vs[0], vs[len(vs)-1]
		if effortRank(lo.effort) == effortRank(hi.effort) {
			continue
		}
		for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
			a, b := r.anchor(hi.sim, cond), r.anchor(lo.sim, cond)
			if a == nil || b == nil {
				continue
			}
			p := analysis.PairedAccuracy(a, b)
			t := p.Test
			ga, gb := r.group(hi.sim, cond, r.anchorN, r.anchorK), r.group(lo.sim, cond, r.anchorN, r.anchorK)
			mean := func(g *group) string { return f1(float64(g.tokensOut) / float64(g.generations)) }
			accA, accB := analysis.MacroAccuracy(a).Accuracy.Mean, analysis.MacroAccuracy(b).Accuracy.Mean
			f.table.add(model, cond, lo.sim, hi.sim, lo.effort, hi.effort, f3(accB), f3(accA), s3(t.MeanDiff), s3(t.CI.Lo), s3(t.CI.Hi),
				f2(t.T), pval(t.P), strconv.Itoa(len(p.Developers)), mean(gb), mean(ga))
			names = append(names, fmt.Sprintf("%s %s -> %s, %s", lo.sim, lo.effort, hi.effort, cond))
			vals = append(vals, interval{t.MeanDiff, t.CI.Lo, t.CI.Hi})
			notes = append(notes, fmt.Sprintf("%s at %s effort vs %s at %s, %s: %s -> %s, %s (95%% CI %s to %s, t = %s)",
				lo.sim, lo.effort, hi.sim, hi.effort, cond, f3(accB), f3(accA), s3(t.MeanDiff), s3(t.CI.Lo), s3(t.CI.Hi), f2(t.T)))
		}
	}
	if len(vals) == 0 {
		return nil, missing("effort", "no two simulators share a backend and model at different reasoning_effort with labelled generations at %s: "+
			"run ub generate with the same model at two reasoning efforts", r.anchorText())
	}
	pos := make([]float64, len(vals))
	lbl := make([]string, len(vals))
	lo, hi := 0.0, 0.0
	for i := range vals {
		pos[i] = float64(len(vals) - 1 - i)
		lbl[len(vals)-1-i] = names[i]
		for _, v := range []float64{vals[i].lo, vals[i].hi, vals[i].v} {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	p := newPlot("Reasoning effort: accuracy at high minus low effort, paired per developer", "accuracy difference (95% t interval)", "")
	p.NominalY(lbl...)
	p.X.Min, p.X.Max = lo-0.02, hi+0.02
	p.Y.Min, p.Y.Max = -0.6, float64(len(vals))-0.4
	if err := bars(p, pos, vals, true, palette[3]); err != nil {
		return nil, err
	}
	if _, err := refLine(p, 0, p.Y.Min, p.Y.Max, true, colGrey, false); err != nil {
		return nil, err
	}
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, vg.Length(1.3+0.4*float64(len(vals)))*vg.Inch)
	f.caption = "The same backend and model at two reasoning efforts, prompt and judge held fixed: " + strings.Join(notes, "; ") + "."
	return f, nil
}

// seedReadingName names the leaderboard row of the seed's reading of the
// chance line.
const seedReadingName = "chance line, seed's reading (sum q^2)"

// seedReading is the seed's reading of the chance line (SPEC section 5):
// the collision probability sum_m q_m^2 of the scored moments' own move
// mix (analysis.ChanceLine), per developer and averaged over the
// developers of the chance line formed from the profile sessions, so the
// two stand on the same n.
func (r *Report) seedReading(lines analysis.ProfileLines) analysis.Chance {
	in := map[string]bool{}
	for _, d := range lines.Chance.Developers {
		in[d.Developer] = true
	}
	var scored []analysis.Outcome
	for _, o := range r.realOutcomes() {
		if in[o.Developer] {
			scored = append(scored, o)
		}
	}
	return analysis.ChanceLine(scored)
}

// linesCaption describes the chance and majority lines and the simulators
// below them.
func (r *Report) linesCaption(b *strings.Builder, rows []ranked, lines analysis.ProfileLines) {
	chance, major := lines.Chance, lines.Majority
	fmt.Fprintf(b, "The chance and majority lines are formed from each developer's profile sessions (the moves of their moments there, labelled by the same judge), "+
		"data the scoring never sees, and scored on the held-out moments: %d developers", chance.Line.N)
	if len(lines.Unprofiled) > 0 {
		fmt.Fprintf(b, " (%d without a labelled profile-session moment left out)", len(lines.Unprofiled))
	}
	fmt.Fprintf(b, ". The chance line (sampling the next move from the developer's profile mix) is %s", f3(chance.Line.Mean))
	var below []string
	for _, x := range rows {
		if x.without != nil && x.without.Accuracy.Mean < chance.Line.Mean {
			below = append(below, x.sim)
		}
	}
	if len(below) > 0 {
		fmt.Fprintf(b, "; below it without profile: %s.", strings.Join(below, ", "))
	} else {
		b.WriteString("; every simulator clears it without profile.")
	}
	fmt.Fprintf(b, " The majority line (always saying the developer's most frequent profile-session move, macro mean) is %s", f3(major.Line.Mean))
	below = below[:0]
	for _, x := range rows {
		if x.without != nil && x.without.Accuracy.Mean < major.Line.Mean {
			below = append(below, x.sim)
		}
	}
	if len(below) > 0 {
		fmt.Fprintf(b, "; below it without profile, adding nothing over always saying the developer's favourite move: %s.", strings.Join(below, ", "))
	} else {
		b.WriteString("; every simulator clears it without profile.")
	}
}
