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

// kappaRow is the agreement of one judge pair on one kind of target.
type kappaRow struct {
	a, b, target string
	k            analysis.Kappa
}

// kappas returns Cohen's kappa of every judge pair, over all targets both
// labelled and per kind of target, in the order of the agreement rows.
func kappas(rows []queries.AgreementCount) []kappaRow {
	type key struct{ a, b, target string }
	var order []key
	counts := map[key][]queries.AgreementCount{}
	for _, row := range rows {
		for _, k := range []key{{row.JudgeA, row.JudgeB, "all"}, {row.JudgeA, row.JudgeB, row.Target}} {
			if _, ok := counts[k]; !ok {
				order = append(order, k)
			}
			counts[k] = append(counts[k], row)
		}
	}
	var out []kappaRow
	for _, k := range order {
		labels := map[string]bool{}
		for _, c := range counts[k] {
			labels[c.MoveA], labels[c.MoveB] = true, true
		}
		conf := analysis.ConfusionOf(sortedStrings(labels))
		for _, c := range counts[k] {
			conf.Add(c.MoveA, c.MoveB, c.N)
		}
		out = append(out, kappaRow{k.a, k.b, k.target, analysis.CohenKappa(conf)})
	}
	return out
}

func (r *Report) judgeAgreement() (*figure, error) {
	rows := kappas(r.st.Agreement)
	if len(rows) == 0 {
		var names []string
		for _, j := range r.st.Judges {
			names = append(names, j.Judge)
		}
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		return nil, missing("judge-agreement", "no two judges labelled the same messages (judges: %s): run ub judge with a second judge, or ub labels import", list)
	}
	f := &figure{}
	f.table.header = []string{"judge_a", "judge_b", "targets", "n", "observed", "expected", "kappa", "ci_lo", "ci_hi"}
	names := make([]string, len(rows))
	pos := make([]float64, len(rows))
	vals := make([]interval, len(rows))
	lo := 1.0
	var notes []string
	for i, x := range rows {
		k := x.k
		f.table.add(x.a, x.b, x.target, strconv.Itoa(k.N), f3(k.Observed), f3(k.Expected), f3(k.Kappa), f3(k.Lo), f3(k.Hi))
		names[len(rows)-1-i] = fmt.Sprintf("%s vs %s (%s)", x.a, x.b, x.target)
		pos[i] = float64(len(rows) - 1 - i)
		vals[i] = interval{k.Kappa, k.Lo, k.Hi}
		if !math.IsNaN(k.Lo) {
			lo = math.Min(lo, k.Lo)
		}
		if x.target == "all" {
			notes = append(notes, fmt.Sprintf("%s vs %s: kappa = %s (95%% CI %s to %s) on %d messages, raw agreement %s",
				x.a, x.b, f3(k.Kappa), f3(k.Lo), f3(k.Hi), k.N, f3(k.Observed)))
		}
	}
	p := newPlot("Inter-judge agreement on the move (Cohen's kappa, 95% interval)", "Cohen's kappa", "")
	p.NominalY(names...)
	p.X.Min, p.X.Max = math.Max(-1, lo-0.05), 1
	p.Y.Min, p.Y.Max = -0.6, float64(len(rows))-0.4
	if _, err := errDots(p, pos, vals, true, palette[3], draw.CircleGlyph{}, vg.Points(3.5)); err != nil {
		return nil, err
	}
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, vg.Length(1.2+0.35*float64(len(rows)))*vg.Inch)
	f.caption = "Cohen's kappa of every pair of judges over the messages both labelled (real messages at points, and generations), " +
		"with the large-sample 95% interval of Fleiss, Cohen & Everitt (1969). " + strings.Join(notes, "; ") + "."
	return f, nil
}

func (r *Report) splitSummary() (*figure, error) {
	s := r.in.Split
	if s == nil {
		return nil, missing("split-summary", "no split in this workspace: run ub split")
	}
	pic, err := splitSummaryDrawing(*s)
	if err != nil {
		return nil, err
	}
	f := &figure{pic: pic, table: splitSummaryTable(*s)}
	l := s.largest()
	var parts []string
	for _, c := range s.Splits {
		parts = append(parts, fmt.Sprintf("%s %d developers / %d repos / %d sessions", c.Split, c.Developers, c.Repos, c.Sessions))
	}
	eligible := 0
	for _, fu := range s.Funnel {
		eligible += fu.Eligible
	}
	f.caption = fmt.Sprintf("Whole developer <-> repository components go to one split (seed %d, %s by %s, hash %s): %d components, the largest %d developers across %d repositories. %s. %d developers are eligible for evaluation (>= %d sessions, >= %d held-out sessions, >= %d held-out moments).",
		s.Run.Seed, s.Run.Ratios, s.Run.Measure, short(s.Run.Hash), len(s.Components), l.Developers, l.Repos, strings.Join(parts, "; "),
		eligible, s.Run.MinSessions, s.Run.MinHeldoutSessions, s.Run.MinHeldoutMoments)
	return f, nil
}
