package reports

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// This file holds the leaderboard's between-trial spread: with trials = k
// every point is scored k times per setting (queries.StudySetting.Trials),
// each developer's accuracy is their mean over the trials, and the report
// says how far the trials disagree. A study of one trial shows nothing of
// it: its report is that of a study without trials.

// spreadRow is the between-trial spread of one simulator in one condition
// at the anchor.
type spreadRow struct {
	sim, cond string
	spread    analysis.TrialSpread
}

// trialSpreads returns the spread of every leaderboard setting (the
// anchor, with or without profile) that has more than one trial, by
// simulator then condition; nil when none has.
func (r *Report) trialSpreads() []spreadRow {
	type key struct{ sim, cond string }
	points := map[key][]analysis.TrialPoints{}
	scores := map[key][]analysis.TrialScore{}
	keys := map[key]bool{}
	lead := func(s, c string, n, k int) bool {
		return r.atAnchor(n, k) && (c == queries.CondNoProfile || c == queries.CondProfile)
	}
	for _, s := range r.st.Settings {
		if s.Trials > 1 && lead(s.Simulator, s.Condition, s.N, s.K) {
			keys[key{s.Simulator, s.Condition}] = true
		}
	}
	for _, p := range r.st.TrialPoints {
		if k := (key{p.Simulator, p.Condition}); keys[k] && lead(p.Simulator, p.Condition, p.N, p.K) {
			points[k] = append(points[k], analysis.TrialPoints{Trials: p.Trials, Hits: p.Hits, Disagree: p.Disagree, Count: p.Count})
		}
	}
	for _, x := range r.st.TrialScores {
		if k := (key{x.Simulator, x.Condition}); keys[k] && lead(x.Simulator, x.Condition, x.N, x.K) {
			scores[k] = append(scores[k], analysis.TrialScore{Developer: x.Developer, Trial: x.Trial, Hits: x.Hits, Moments: x.Moments})
		}
	}
	var out []spreadRow
	for k := range keys {
		out = append(out, spreadRow{sim: k.sim, cond: k.cond, spread: analysis.Spread(points[k], scores[k])})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].sim != out[j].sim {
			return out[i].sim < out[j].sim
		}
		return out[i].cond < out[j].cond
	})
	return out
}

// trialSpreadMarkdown is the leaderboard's between-trial spread as a
// Markdown paragraph and table; "" when no leaderboard setting has more
// than one trial.
func (r *Report) trialSpreadMarkdown() string {
	rows := r.trialSpreads()
	if len(rows) == 0 {
		return ""
	}
	t := table{header: []string{"simulator", "condition", "trials", "points", "moves differ (95% Wilson)", "hit differs (95% Wilson)",
		"per-point SD of hit", "accuracy per trial", "trial mean (95% t over trials)"}}
	for _, x := range rows {
		s := x.spread
		per := make([]string, len(s.PerTrial))
		for i, v := range s.PerTrial {
			per[i] = f3(v)
		}
		share := func(p analysis.Proportion) string {
			if s.Points == 0 {
				return "n/a"
			}
			return fmt.Sprintf("%d/%d = %s [%s, %s]", p.K, p.N, f3(p.P), f3(p.Lo), f3(p.Hi))
		}
		t.add(x.sim, x.cond, strconv.Itoa(s.Trials), strconv.Itoa(s.Points), share(s.Disagree), share(s.HitsDisagree),
			f3(s.PointSD), strings.Join(per, ", "), fmt.Sprintf("%s [%s, %s], SD %s", f3(s.Macro.Mean), f3(s.Macro.Lo), f3(s.Macro.Hi), f3(s.Macro.SD)))
	}
	var b strings.Builder
	b.WriteString("\n**Between-trial spread.** ")
	b.WriteString(mdText("These simulators were run more than once per point (trials): each developer's accuracy above is the mean over the trials " +
		"(hits over every trial's moments), and the intervals, pairs and cluster are over developers as for one trial; moments, failed and missing count every trial. " +
		"Below, at the leaderboard's setting: the points with at least two trials scored (n), the share whose trials generated different moves " +
		"and the share whose trials differ in hit or miss (Wilson 95%), the mean over points of the standard deviation of the hit across trials, " +
		"the macro accuracy of each trial alone, and their mean with a t 95% interval over the trials (how far the headline moves from trial to trial)."))
	b.WriteString("\n\n")
	b.WriteString(mdTable(t))
	return b.String()
}

// aggregateTrials completes aggregate for a study built in memory with
// trials: st's generations per setting and trial give every setting's
// Trials (the highest trial plus one) in out.Settings, and, for the
// settings at the anchor (an, ak) with more than one trial, out's
// TrialScores and TrialPoints as study_trial_scores.sql and
// study_trial_points.sql count them. It returns the number of trials of a
// setting, for the missing moments of every trial.
func aggregateTrials(st, out *queries.Study, an, ak int) func(sim, cond string, n, k int) int {
	skey := func(sim, cond string, n, k int) [4]string {
		return [4]string{sim, cond, strconv.Itoa(n), strconv.Itoa(k)}
	}
	trials := map[[4]string]int{}
	for _, g := range st.Generations {
		k := skey(g.Simulator, g.Condition, g.N, g.K)
		trials[k] = max(trials[k], g.Trial+1)
	}
	for i := range out.Settings {
		s := &out.Settings[i]
		s.Trials = trials[skey(s.Simulator, s.Condition, s.N, s.K)]
	}
	type pt struct {
		set   [4]string
		point int
	}
	type cell struct {
		set   [4]string
		dev   string
		trial int
	}
	counted, hits := map[pt]int{}, map[pt]int{}
	moves := map[pt]map[string]bool{}
	devPoints := map[string]int{}
	for _, p := range st.Points {
		if scorable(p.Real) {
			devPoints[p.Developer]++
		}
	}
	cells := map[cell]*queries.StudyTrialScores{}
	present := map[cell]int{}
	for _, g := range st.Generations {
		set := skey(g.Simulator, g.Condition, g.N, g.K)
		p := st.Points[g.Point]
		if g.N != an || g.K != ak || trials[set] < 2 || !scorable(p.Real) {
			continue
		}
		c := cell{set, p.Developer, g.Trial}
		present[c]++
		if g.Failed || g.Move != "" {
			x := pt{set, g.Point}
			counted[x]++
			m := g.Move
			if g.Failed {
				m = ""
			}
			if moves[x] == nil {
				moves[x] = map[string]bool{}
			}
			moves[x][m] = true
			s := cells[c]
			if s == nil {
				s = &queries.StudyTrialScores{}
				cells[c] = s
			}
			s.Moments++
			if !g.Failed && g.Move == p.Real {
				hits[x]++
				s.Hits++
			}
		}
	}
	for _, s := range out.Settings {
		set := skey(s.Simulator, s.Condition, s.N, s.K)
		if s.N != an || s.K != ak || s.Trials < 2 {
			continue
		}
		devs := make([]string, 0, len(devPoints))
		for d := range devPoints {
			devs = append(devs, d)
		}
		sort.Strings(devs)
		for _, d := range devs {
			for tr := range s.Trials {
				c := cell{set, d, tr}
				x := queries.StudyTrialScores{Simulator: s.Simulator, Condition: s.Condition, N: s.N, K: s.K, Developer: d, Trial: tr}
				if v := cells[c]; v != nil {
					x.Hits, x.Moments = v.Hits, v.Moments
				}
				x.Moments += devPoints[d] - present[c]
				out.TrialScores = append(out.TrialScores, x)
			}
		}
		type group struct {
			trials, hits int
			disagree     bool
		}
		groups := map[group]int{}
		for i := range st.Points {
			x := pt{set, i}
			if counted[x] >= 2 {
				groups[group{counted[x], hits[x], len(moves[x]) > 1}]++
			}
		}
		gs := make([]group, 0, len(groups))
		for g := range groups {
			gs = append(gs, g)
		}
		sort.Slice(gs, func(i, j int) bool {
			a, b := gs[i], gs[j]
			if a.trials != b.trials {
				return a.trials < b.trials
			}
			if a.hits != b.hits {
				return a.hits < b.hits
			}
			return !a.disagree && b.disagree
		})
		for _, g := range gs {
			out.TrialPoints = append(out.TrialPoints, queries.StudyTrialPoints{Simulator: s.Simulator, Condition: s.Condition, N: s.N, K: s.K,
				Trials: g.trials, Hits: g.hits, Disagree: g.disagree, Count: groups[g]})
		}
	}
	return func(sim, cond string, n, k int) int { return trials[skey(sim, cond, n, k)] }
}
