package reports

import (
	"fmt"
	"image/color"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot/vg"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// caseMoments is how many moments the case study shows.
const caseMoments = 4

// clip shortens s to at most n runes, marking the cut with "...", and puts
// it on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-3])) + "..."
}

// caseStudy draws the case-study figure for the case developer. In turn:
// it gathers the move each leaderboard simulator generated at the
// developer's points in both conditions; picks the moments where the
// profile changed the most simulators' moves (at most caseMoments); lays
// out the table (real developer first, then each simulator and condition)
// with each message's text and whether its move matches the real one; and
// draws the grid of moves, framed where a move matches, with its caption.
func (r *Report) caseStudy() (*figure, error) {
	dev, _, _, ok := r.CaseDeveloper()
	if !ok && dev != "" {
		return nil, missing("case-study", "developer %s is not scored by two or more of the case study's simulators both with and without profile at %s: choose another with --case-developer", dev, r.anchorText())
	}
	if !ok {
		return nil, missing("case-study", "no developer is scored by two or more simulators both with and without profile at %s: run ub generate with both conditions, then ub judge", r.anchorText())
	}
	ct := r.caseTexts
	if ct == nil || ct.Developer != dev {
		return nil, missing("case-study", "the texts of developer %s were not loaded", dev)
	}
	// The generated move of every leaderboard simulator at the developer's
	// points, in both conditions.
	type sc struct{ sim, cond string }
	moves := map[sc]map[int]string{} // by point index
	var sims []string
	for _, x := range r.ranking() {
		if r.anchor(x.sim, queries.CondProfile) == nil || r.anchor(x.sim, queries.CondNoProfile) == nil || !slices.Contains(r.caseSims(), x.sim) {
			continue
		}
		sims = append(sims, x.sim)
		for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
			moves[sc{x.sim, cond}] = map[int]string{}
		}
	}
	pointIdx := map[string]int{}
	for i, p := range r.st.Points {
		if p.Developer == dev {
			pointIdx[p.ID] = i
		}
	}
	for _, g := range ct.Generations {
		m, ok := moves[sc{g.Simulator, g.Condition}]
		i, at := pointIdx[g.PointID]
		if !ok || !at {
			continue
		}
		switch {
		case g.Failed:
			m[i] = "failed"
		default:
			m[i] = g.Move
		}
	}
	// The moments where the profile changed the most simulators' moves.
	type cand struct {
		idx     int
		changed int
	}
	var cands []cand
	for i, p := range r.st.Points {
		if p.Developer != dev || !scorable(p.Real) {
			continue
		}
		c := cand{idx: i}
		for _, s := range sims {
			if moves[sc{s, queries.CondNoProfile}][i] != moves[sc{s, queries.CondProfile}][i] {
				c.changed++
			}
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].changed != cands[j].changed {
			return cands[i].changed > cands[j].changed
		}
		return r.st.Points[cands[i].idx].ID < r.st.Points[cands[j].idx].ID
	})
	if len(cands) > caseMoments {
		cands = cands[:caseMoments]
	}
	sort.Slice(cands, func(i, j int) bool { return r.st.Points[cands[i].idx].ID < r.st.Points[cands[j].idx].ID })

	texts := map[string]map[sc]string{}
	for _, g := range ct.Generations {
		if texts[g.PointID] == nil {
			texts[g.PointID] = map[sc]string{}
		}
		t := g.Text
		if g.Error != "" {
			t = "[error: " + g.Error + "]"
		}
		texts[g.PointID][sc{g.Simulator, g.Condition}] = t
	}
	ptext := map[string][2]string{}
	for _, p := range ct.Points {
		ptext[p.ID] = [2]string{p.Agent, p.Real}
	}

	f := &figure{}
	f.table.header = []string{"moment", "point", "prior_turns", "speaker", "condition", "move", "matches_real", "text"}
	md := &table{header: []string{"moment", "speaker", "condition", "move", "text"}, markdown: true}
	type rowKey struct{ label, sim, cond string }
	rows := []rowKey{{"real developer", "", ""}}
	for _, s := range sims {
		rows = append(rows, rowKey{s + " without", s, queries.CondNoProfile}, rowKey{s + " with", s, queries.CondProfile})
	}
	colLabels := make([]string, len(cands))
	var lifts []string
	for _, s := range sims {
		p := analysis.PairedAccuracy(r.anchor(s, queries.CondProfile), r.anchor(s, queries.CondNoProfile))
		for i, d := range p.Developers {
			if d == dev {
				lifts = append(lifts, fmt.Sprintf("%s %s", s, s3(p.Diffs[i])))
			}
		}
	}
	for mi, c := range cands {
		p := r.st.Points[c.idx]
		m := "M" + strconv.Itoa(mi+1)
		colLabels[mi] = fmt.Sprintf("%s (%d prior turns)", m, p.PriorTurns)
		tx := ptext[p.ID]
		f.table.add(m, p.ID, strconv.Itoa(p.PriorTurns), "agent", "", "", "", tx[0])
		f.table.add(m, p.ID, strconv.Itoa(p.PriorTurns), "real developer", "", p.Real, "", tx[1])
		md.add(m, "agent (latest turn)", "", "", mdText(clip(tx[0], 110)))
		md.add(m, "**real developer**", "", "**"+mdText(p.Real)+"**", mdText(clip(tx[1], 110)))
		for _, s := range sims {
			for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
				mv := moves[sc{s, cond}][c.idx]
				hit := strconv.FormatBool(mv == p.Real)
				f.table.add(m, p.ID, strconv.Itoa(p.PriorTurns), s, cond, mv, hit, texts[p.ID][sc{s, cond}])
				mark := mdText(mv)
				if mv == p.Real {
					mark = "**" + mark + "**"
				}
				md.add(m, mdText(s), mdText(cond), mark, mdText(clip(texts[p.ID][sc{s, cond}], 110)))
			}
		}
	}
	f.mdTable = md
	rowLabels := make([]string, len(rows))
	for i, rk := range rows {
		rowLabels[len(rows)-1-i] = rk.label
	}
	cell := func(c, rr int) (string, bool) {
		rk := rows[len(rows)-1-rr]
		p := r.st.Points[cands[c].idx]
		if rk.sim == "" {
			return p.Real, false
		}
		mv := moves[sc{rk.sim, rk.cond}][cands[c].idx]
		return mv, mv == p.Real
	}
	pl := newPlot(fmt.Sprintf("Case study: %s, real move vs each simulator's move (framed: same as real)", dev), "moment", "")
	pl.Add(&cellGrid{cols: len(cands), rows: len(rows), size: vg.Points(8),
		fill: func(c, rr int) (color.Color, bool) {
			mv, _ := cell(c, rr)
			return moveColor(mv), true
		},
		text: func(c, rr int) string {
			mv, _ := cell(c, rr)
			if mv == "" {
				return "-"
			}
			return mv
		},
		outline: func(c, rr int) bool {
			_, hit := cell(c, rr)
			return hit
		},
	})
	pl.NominalX(colLabels...)
	pl.NominalY(rowLabels...)
	f.pic = single(pl, 8*vg.Inch, vg.Length(1.3+0.26*float64(len(rows)))*vg.Inch)
	f.caption = fmt.Sprintf("Developer %s, the one whose profile lift varies most across simulators (%s), at the %d moments where the profile changed the most simulators' moves. "+
		"The table gives the agent's latest turn, the real message and every simulator's message; the real move and matching moves are in bold.",
		dev, strings.Join(lifts, ", "), len(cands))
	return f, nil
}
