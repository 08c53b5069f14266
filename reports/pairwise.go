package reports

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// compareAlpha is the familywise level of the pairwise comparisons: two
// simulators are told apart when their Holm-adjusted p is below it.
const compareAlpha = 0.05

// bootOpts are the report's bootstrap options with defaults filled in.
func (r *Report) bootOpts() analysis.BootstrapOptions { return r.in.Bootstrap.Resolved() }

// comparison compares every pair of the simulators scored in cond at the
// anchor (analysis.CompareSimulators), once per condition.
func (r *Report) comparison(cond string) *analysis.Comparison {
	r.cmpMu.Lock()
	defer r.cmpMu.Unlock()
	if c, ok := r.cmp[cond]; ok {
		return c
	}
	var sims []analysis.Scored
	for _, sim := range r.leaderboardSims() {
		if o := r.anchor(sim, cond); o != nil {
			sims = append(sims, analysis.Scored{Simulator: sim, Developers: analysis.PerDeveloper(o)})
		}
	}
	c := analysis.CompareSimulators(sims, compareAlpha, r.bootOpts())
	if r.cmp == nil {
		r.cmp = map[string]*analysis.Comparison{}
	}
	r.cmp[cond] = &c
	return &c
}

// clusterSentence says which simulators of cond the data cannot tell from
// the top one, and which were too small to compare.
func clusterSentence(c *analysis.Comparison, cond string) string {
	var b strings.Builder
	switch {
	case c.Top == "":
		fmt.Fprintf(&b, "No simulator %s has the %d developers a comparison needs.", condPhrase(cond), analysis.MinDevelopers)
	case len(c.TopCluster) == 1 && len(c.Ranked) > 1:
		fmt.Fprintf(&b, "%s, %s is ahead of every other simulator (Holm-adjusted p < %s against each).", capital(condPhrase(cond)), c.Top, fnum(compareAlpha, 2))
	case len(c.TopCluster) == 1:
		fmt.Fprintf(&b, "%s, %s is the only simulator compared.", capital(condPhrase(cond)), c.Top)
	default:
		fmt.Fprintf(&b, "%s, the top cluster (not distinguishable from the highest, %s, at Holm-adjusted p >= %s) is %s.",
			capital(condPhrase(cond)), c.Top, fnum(compareAlpha, 2), strings.Join(c.TopCluster, ", "))
	}
	if len(c.Small) > 0 {
		fmt.Fprintf(&b, " Left out of the comparison (fewer than %d developers): %s.", analysis.MinDevelopers, strings.Join(c.Small, ", "))
	}
	return b.String()
}

func condPhrase(cond string) string {
	switch cond {
	case queries.CondNoProfile:
		return "without profile"
	case queries.CondProfile:
		return "with profile"
	}
	return "in condition " + cond
}

// inCluster marks a simulator of a comparison: "yes" in the top cluster,
// "no" compared and outside it, "n < 10" left out by the small-sample rule.
func inCluster(c *analysis.Comparison, sim string) string {
	for _, s := range c.Small {
		if s == sim {
			return "n < " + strconv.Itoa(analysis.MinDevelopers)
		}
	}
	for _, s := range c.TopCluster {
		if s == sim {
			return "yes"
		}
	}
	return "no"
}

// pairwise is the matrix of paired differences between simulators, one
// panel per condition.
func (r *Report) pairwise() (*figure, error) {
	f := &figure{}
	f.table.header = []string{"condition", "a", "b", "diff", "boot_lo", "boot_hi", "p", "p_holm", "tests", "developers", "distinguishable"}
	var plots []*plot.Plot
	var notes []string
	rows := 0
	width := 0.0 // inches of the panels
	for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
		c := r.comparison(cond)
		if len(c.Pairs) == 0 {
			if len(c.Small) > 0 {
				notes = append(notes, clusterSentence(c, cond))
			}
			continue
		}
		diff := map[[2]string]analysis.SimulatorPair{}
		for _, p := range c.Pairs {
			dist := "no"
			if p.Holm < compareAlpha {
				dist = "yes"
			}
			f.table.add(cond, p.A, p.B, s3(p.Diff.Estimate), s3(p.Diff.Lo), s3(p.Diff.Hi), pval(p.P), pval(p.Holm),
				strconv.Itoa(len(c.Pairs)), strconv.Itoa(p.Developers), dist)
			diff[[2]string{p.A, p.B}] = p
		}
		k := len(c.Ranked)
		m := 0.0
		for _, p := range c.Pairs {
			m = math.Max(m, math.Abs(p.Diff.Estimate))
		}
		if m == 0 {
			m = 1
		}
		// Row i from the top is Ranked[i]; column j is Ranked[j]: the
		// cell holds row minus column, for j > i only.
		at := func(col, row int) (analysis.SimulatorPair, bool) {
			i := k - 1 - row
			if col <= i {
				return analysis.SimulatorPair{}, false
			}
			p, ok := diff[[2]string{c.Ranked[i], c.Ranked[col]}]
			return p, ok
		}
		title := fmt.Sprintf("Row minus column, paired per developer, %s (%d %s)", condPhrase(cond), len(c.Pairs), map[bool]string{true: "test", false: "tests"}[len(c.Pairs) == 1])
		// A panel is as wide as its cells or its title, whichever is wider
		// (about 0.085 inch a character of the 12-point title).
		width += math.Max(0.9*float64(k), 0.085*float64(len(title))+0.3)
		p := newPlot(title, "", "")
		p.Add(&cellGrid{cols: k, rows: k, size: vg.Points(8),
			fill: func(col, row int) (color.Color, bool) {
				pr, ok := at(col, row)
				if !ok {
					return nil, false
				}
				return diverging(pr.Diff.Estimate, m), true
			},
			text: func(col, row int) string {
				pr, _ := at(col, row)
				s := s3(pr.Diff.Estimate)
				if pr.Holm < compareAlpha {
					s += "*"
				}
				return s
			},
		})
		rowLabels := make([]string, k)
		for i, s := range c.Ranked {
			rowLabels[k-1-i] = s
		}
		p.NominalX(c.Ranked...)
		p.NominalY(rowLabels...)
		p.X.Tick.Label.Rotation = 0.35
		p.X.Tick.Label.XAlign = draw.XRight
		plots = append(plots, p)
		rows = max(rows, k)
		notes = append(notes, clusterSentence(c, cond))
	}
	if len(plots) == 0 {
		return nil, missing("pairwise", "fewer than two simulators with %d or more developers in one condition at %s: %s", analysis.MinDevelopers, r.anchorText(), hintGenerate)
	}
	f.pic = panels(plots, vg.Length(1.5+width)*vg.Inch, vg.Length(2.2+0.5*float64(rows))*vg.Inch)
	o := r.bootOpts()
	f.caption = fmt.Sprintf("Every pair of simulators in a condition, compared on the developers both scored: the mean per-developer difference in accuracy "+
		"(row minus column) with its 95%% developer bootstrap interval (B = %d, seed %d) and the two-sided sign-flip permutation test over developers; "+
		"p values are Holm-adjusted over the pairs of the condition (* below %s). %s",
		o.B, o.Seed, fnum(compareAlpha, 2), strings.Join(notes, " "))
	return f, nil
}

// chanceValues are the per-developer collision probabilities of a chance line.
func chanceValues(c analysis.Chance) []float64 {
	out := make([]float64, len(c.Developers))
	for i, d := range c.Developers {
		out[i] = d.Collision
	}
	return out
}

// majorityValues are the per-developer shares of a majority line.
func majorityValues(m analysis.Majority) []float64 {
	out := make([]float64, len(m.Developers))
	for i, d := range m.Developers {
		out[i] = d.Share
	}
	return out
}

// recoveryText says how much of the profile's gain the terse-only prefix
// recovers for sim (analysis.TerseRecovery): the share with its bootstrap
// interval when the gain's interval excludes zero, else "not estimable"
// with the gain's interval.
func (r *Report) recoveryText(sim string) string {
	per := func(cond string) []analysis.DeveloperScore { return analysis.PerDeveloper(r.anchor(sim, cond)) }
	rc := analysis.TerseRecovery(per(queries.CondNoProfile), per(queries.CondTerse), per(queries.CondProfile), r.bootOpts())
	gain := fmt.Sprintf("the profile's gain %s (95%% bootstrap %s to %s, %d developers)", s3(rc.Gain.Estimate), s3(rc.Gain.Lo), s3(rc.Gain.Hi), rc.Developers)
	if !rc.Estimable {
		return "terse-only recovery of the profile's gain not estimable: " + gain + " does not exclude zero"
	}
	return fmt.Sprintf("terse-only recovers %s (95%% bootstrap %s to %s) of %s", fnum(100*rc.Share.Estimate, 0)+"%",
		fnum(100*rc.Share.Lo, 0)+"%", fnum(100*rc.Share.Hi, 0)+"%", gain)
}

// SetBootstrap sets the replicates, seed and level of the UserBench
// bootstrap intervals and sign-flip tests (Input.Bootstrap); call it
// before drawing.
func (r *Report) SetBootstrap(o analysis.BootstrapOptions) { r.in.Bootstrap = o }
