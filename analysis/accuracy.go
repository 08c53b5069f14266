package analysis

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Outcome is one scored moment: the move the developer really made next and
// the move the simulator generated there, both as judge labels (SPEC section
// 4: "approve", "critical", "directive", "inquiry", or "other"). Moves are
// compared as exact strings; "other" is a move like any other, and a failed
// generation should be passed with whatever label the caller gives failures
// (for example ""), which then never matches a real move.
type Outcome struct {
	Developer string
	Real      string
	Generated string
}

// Outcomes is Count moments with the same developer and moves: the outcomes
// of a large study counted (queries.LoadStudy aggregates them in DuckDB) so
// that memory grows with developers and moves, not with moments. Every
// statistic of this package counts moments per developer and move, so Count
// moments passed as one Outcomes give exactly the numbers of Count equal
// Outcome values.
type Outcomes struct {
	Outcome
	Count int // moments; 0 or less counts none
}

// Moment is what the statistics take: one Outcome, or counted Outcomes.
type Moment interface {
	Outcome | Outcomes
	moments() (Outcome, int)
}

func (o Outcome) moments() (Outcome, int)  { return o, 1 }
func (o Outcomes) moments() (Outcome, int) { return o.Outcome, max(o.Count, 0) }

// Total is the number of moments in outcomes.
func Total[M Moment](outcomes []M) int {
	n := 0
	for _, m := range outcomes {
		_, c := m.moments()
		n += c
	}
	return n
}

// DeveloperScore is one developer's accuracy.
type DeveloperScore struct {
	Developer string
	Hits      int     // moments where Generated == Real
	N         int     // moments scored
	Accuracy  float64 // Hits / N
}

// PerDeveloper returns each developer's accuracy, the share of their moments
// where the generated move equals the real move (SPEC section 5), sorted by
// developer. nil or empty outcomes give nil.
func PerDeveloper[M Moment](outcomes []M) []DeveloperScore {
	// One entry per run of outcomes of the same developer, then sorted and
	// merged: a counted study has a few outcomes per developer, in
	// developer order, for thousands of developers, and this runs for
	// every setting of every figure (a map per call cost a third of the
	// report's drawing at 100x the seed's scale).
	var out []DeveloperScore
	for _, m := range outcomes {
		o, c := m.moments()
		if c == 0 {
			continue
		}
		if n := len(out); n == 0 || out[n-1].Developer != o.Developer {
			out = append(out, DeveloperScore{Developer: o.Developer})
		}
		d := &out[len(out)-1]
		d.N += c
		if o.Generated == o.Real {
			d.Hits += c
		}
	}
	if len(out) == 0 {
		return nil
	}
	byDeveloper := func(a, b DeveloperScore) int { return strings.Compare(a.Developer, b.Developer) }
	if !slices.IsSortedFunc(out, byDeveloper) {
		slices.SortStableFunc(out, byDeveloper)
	}
	merged := out[:1]
	for _, d := range out[1:] {
		if last := &merged[len(merged)-1]; last.Developer == d.Developer {
			last.Hits += d.Hits
			last.N += d.N
			continue
		}
		merged = append(merged, d)
	}
	out = merged
	for i := range out {
		out[i].Accuracy = float64(out[i].Hits) / float64(out[i].N)
	}
	return out
}

// Macro is the headline accuracy of one simulator in one condition.
type Macro struct {
	Developers []DeveloperScore // sorted by developer
	Accuracy   Interval         // mean over developers with its 95% t interval
}

// MacroAccuracy returns the macro accuracy: the unweighted mean of the
// per-developer accuracies, so that a chatty developer does not outweigh a
// quiet one, with the 95% interval
//
//	mean +/- t(0.975, n-1) * sd / sqrt(n)
//
// over the n developers (SPEC section 5; seed 000, "a 95% CI (t, n=20)").
// The NaN cases are those of [MeanCI]: one developer gives NaN bounds.
func MacroAccuracy[M Moment](outcomes []M) Macro {
	devs := PerDeveloper(outcomes)
	acc := make([]float64, len(devs))
	for i, d := range devs {
		acc[i] = d.Accuracy
	}
	return Macro{Developers: devs, Accuracy: MeanCI(acc, Confidence)}
}

// CollisionProbability returns sum_m p_m^2 over the empirical mix of moves:
// the chance that two moves drawn independently from the mix are equal, and
// so the expected accuracy of a simulator that ignores the conversation and
// samples from this mix when the real moves follow it too (seed 000, the
// "lucky-guess line"). It is NaN for no moves.
func CollisionProbability(moves []string) float64 {
	if len(moves) == 0 {
		return math.NaN()
	}
	counts := map[string]int{}
	for _, m := range moves {
		counts[m]++
	}
	return collision(counts, len(moves))
}

// collision is sum_m p_m^2 of the mix counts of n moves. Integer
// arithmetic, then one division: exact up to the final rounding and
// independent of map order.
func collision(counts map[string]int, n int) float64 {
	var sum int
	for _, c := range counts {
		sum += c * c
	}
	return float64(sum) / (float64(n) * float64(n))
}

// DeveloperChance is one developer's collision probability.
type DeveloperChance struct {
	Developer string
	N         int     // real moves in the developer's mix
	Collision float64 // sum_m p_m^2 of that mix
}

// Chance is the chance line of a set of moments.
type Chance struct {
	Developers []DeveloperChance // sorted by developer
	// Line is the mean collision probability over developers (Line.Mean is
	// the chance line of SPEC section 5), with its 95% t interval.
	Line Interval
}

// ChanceLine returns, for each developer, the [CollisionProbability] of the
// real moves in outcomes, and their unweighted mean over developers (SPEC
// section 5: "for each developer the collision probability sum(p_m^2) of
// their move mix; averaged over developers"). The mix is that of the scored
// moments themselves; generated moves are ignored. Seed 000 reports 0.419 on
// its 20 test developers.
func ChanceLine[M Moment](outcomes []M) Chance {
	mix := realMix(outcomes)
	n := map[string]int{}
	for d, counts := range mix {
		for _, c := range counts {
			n[d] += c
		}
	}
	devs := sortedKeys(mix)
	ch := Chance{Developers: make([]DeveloperChance, len(devs))}
	vals := make([]float64, len(devs))
	for i, d := range devs {
		c := collision(mix[d], n[d])
		ch.Developers[i] = DeveloperChance{Developer: d, N: n[d], Collision: c}
		vals[i] = c
	}
	if len(devs) == 0 {
		ch.Developers = nil
	}
	ch.Line = MeanCI(vals, Confidence)
	return ch
}

// realMix counts the real moves of outcomes by developer and move.
func realMix[M Moment](outcomes []M) map[string]map[string]int {
	mix := map[string]map[string]int{}
	for _, x := range outcomes {
		o, c := x.moments()
		if c == 0 {
			continue
		}
		if mix[o.Developer] == nil {
			mix[o.Developer] = map[string]int{}
		}
		mix[o.Developer][o.Real] += c
	}
	return mix
}

// Paired is a per-developer paired comparison of two conditions, a minus b.
type Paired struct {
	Developers []string  // developers present in every condition compared, sorted
	Diffs      []float64 // per-developer difference, aligned with Developers
	Test       TTest     // paired t test of Diffs against zero, with its 95% interval
	// Unpaired lists, sorted, the developers missing from at least one
	// condition. They are excluded from Diffs and Test; a non-empty list
	// usually means generations are missing and should be reported.
	Unpaired []string
}

// PairedAccuracy compares two conditions scored on the same developers:
// for each developer present in both, d = accuracy in a - accuracy in b,
// and Test is the paired t test of those differences ([PairedT]): mean
// difference with its 95% t interval, t = dbar / (s_d / sqrt(n)) on n - 1
// df.
//
// It is the profile effect of SPEC section 5 with a = with profile and b =
// without; the reasoning-effort difference with a = high effort, b = low;
// and each history-sweep comparison with a = K, b = K = 0. Because it pairs
// developers, between-developer spread cancels and the interval is narrower
// than the difference of two macro intervals would suggest.
func PairedAccuracy[M Moment](a, b []M) Paired {
	return pairScores(scoreMap(a), scoreMap(b))
}

// scoreMap returns accuracy by developer.
func scoreMap[M Moment](outcomes []M) map[string]float64 {
	m := map[string]float64{}
	for _, d := range PerDeveloper(outcomes) {
		m[d.Developer] = d.Accuracy
	}
	return m
}

// pairScores pairs two accuracy maps per developer, a minus b.
func pairScores(a, b map[string]float64) Paired {
	return pairedFrom([]map[string]float64{a, b}, func(v []float64) float64 { return v[0] - v[1] })
}

// pairedFrom pairs several per-developer maps: a developer present in all
// of them contributes diff(values in map order); the others are Unpaired.
func pairedFrom(maps []map[string]float64, diff func([]float64) float64) Paired {
	all := map[string]bool{}
	for _, m := range maps {
		for d := range m {
			all[d] = true
		}
	}
	var p Paired
	vals := make([]float64, len(maps))
	for _, d := range sortedKeys(all) {
		ok := true
		for i, m := range maps {
			v, in := m[d]
			if !in {
				ok = false
				break
			}
			vals[i] = v
		}
		if !ok {
			p.Unpaired = append(p.Unpaired, d)
			continue
		}
		p.Developers = append(p.Developers, d)
		p.Diffs = append(p.Diffs, diff(vals))
	}
	p.Test = oneSampleT(p.Diffs)
	return p
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[K interface{ ~int | ~string }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
