package analysis

import "math"

// Move labels the ablation rates refer to. They are the judge's labels of
// SPEC section 4, repeated here so that analysis need not import judge.
const (
	MoveCritical = "critical"
	MoveInquiry  = "inquiry"
)

// Rate is a pooled share K/N over moments. It carries no interval: moments
// are clustered within developers, so a binomial interval on them would be
// too narrow. Developer-level uncertainty is in [MoveRate.Macro].
type Rate struct {
	K int     // moments counted
	N int     // moments eligible
	P float64 // K / N; NaN when N is 0
}

func newRate(k, n int) Rate {
	r := Rate{K: k, N: n, P: math.NaN()}
	if n > 0 {
		r.P = float64(k) / float64(n)
	}
	return r
}

// MoveAgreement is one row of the per-move breakdown.
type MoveAgreement struct {
	Move string // the real move
	// Share is the share of all moments whose real move is Move, over both
	// conditions together (the same frozen points in both, normally).
	Share   float64
	With    Rate    // agree rate with profile: Generated == Move among Real == Move
	Without Rate    // agree rate without profile
	Lift    float64 // With.P - Without.P
}

// MoveBreakdown returns, for each real move (sorted by name), the agree
// rate with and without the profile, their difference, and the move's share
// of all moments (SPEC section 5, "per-move breakdown"; seed 000's table,
// e.g. GLM-5.2 directive +0.11 at 0.83, directive 52% of moves).
//
// The agree rate for move m is pooled over moments, as in the seed's table:
//
//	agree(m) = #{Real = m and Generated = m} / #{Real = m}
//
// which is the recall of m. A move that occurs in only one condition has
// N = 0 and a NaN rate on the other side, and a NaN Lift.
func MoveBreakdown[M Moment](with, without []M) []MoveAgreement {
	type count struct{ hit, n int }
	w, wo := map[string]count{}, map[string]count{}
	moves := map[string]bool{}
	tally := func(m map[string]count, outcomes []M) {
		for _, x := range outcomes {
			o, k := x.moments()
			if k == 0 {
				continue
			}
			c := m[o.Real]
			c.n += k
			if o.Generated == o.Real {
				c.hit += k
			}
			m[o.Real] = c
			moves[o.Real] = true
		}
	}
	tally(w, with)
	tally(wo, without)
	total := Total(with) + Total(without)
	var rows []MoveAgreement
	for _, m := range sortedKeys(moves) {
		r := MoveAgreement{
			Move:    m,
			Share:   float64(w[m].n+wo[m].n) / float64(total),
			With:    newRate(w[m].hit, w[m].n),
			Without: newRate(wo[m].hit, wo[m].n),
		}
		r.Lift = r.With.P - r.Without.P
		rows = append(rows, r)
	}
	return rows
}

// DeveloperRate is one developer's share of eligible moments counted.
type DeveloperRate struct {
	Developer string
	K, N      int
	P         float64 // K / N
}

// MoveRate is a move-level rate pooled over moments and averaged over
// developers.
type MoveRate struct {
	Pooled Rate // over all eligible moments
	// Macro is the mean over developers with at least one eligible moment,
	// with its 95% t interval, as for accuracy.
	Macro      Interval
	Developers []DeveloperRate // developers with an eligible moment, sorted
}

// moveRate counts, per developer, moments where eligible holds and, among
// them, those where counted holds too.
func moveRate[M Moment](outcomes []M, eligible, counted func(Outcome) bool) MoveRate {
	k, n := map[string]int{}, map[string]int{}
	var tk, tn int
	for _, x := range outcomes {
		o, c := x.moments()
		if c == 0 || !eligible(o) {
			continue
		}
		n[o.Developer] += c
		tn += c
		if counted(o) {
			k[o.Developer] += c
			tk += c
		}
	}
	mr := MoveRate{Pooled: newRate(tk, tn)}
	devs := sortedKeys(n)
	vals := make([]float64, len(devs))
	for i, d := range devs {
		vals[i] = float64(k[d]) / float64(n[d])
		mr.Developers = append(mr.Developers, DeveloperRate{Developer: d, K: k[d], N: n[d], P: vals[i]})
	}
	mr.Macro = MeanCI(vals, Confidence)
	return mr
}

// Recall returns the share of moments whose real move is move where the
// simulator generated move too:
//
//	recall(m) = #{Real = m and Generated = m} / #{Real = m}
//
// pooled and per developer. [CriticalRecall] is Recall(outcomes,
// MoveCritical).
func Recall[M Moment](outcomes []M, move string) MoveRate {
	return moveRate(outcomes,
		func(o Outcome) bool { return o.Real == move },
		func(o Outcome) bool { return o.Generated == move })
}

// SpuriousRate returns the share of moments whose real move is not move
// where the simulator generated move anyway:
//
//	spurious(m) = #{Generated = m and Real != m} / #{Real != m}
//
// pooled and per developer: the false-positive rate of m. [SpuriousInquiry]
// is SpuriousRate(outcomes, MoveInquiry).
func SpuriousRate[M Moment](outcomes []M, move string) MoveRate {
	return moveRate(outcomes,
		func(o Outcome) bool { return o.Real != move },
		func(o Outcome) bool { return o.Generated == move })
}

// SpuriousInquiry is the over-asking rate of the terse-only ablation (seed
// 000: "spurious inquiry 0.11 -> 0.03", the clarifying questions "the real
// developer never asks"): among moments where the developer did not ask
// (Real != inquiry), the share where the simulator asked (Generated ==
// inquiry). See [SpuriousRate].
//
// The seed gives no formula. This one is chosen because it counts spurious
// questions against the moments where one could be spurious, so it does not
// move with how often a developer asks, and it mirrors [CriticalRecall],
// which conditions on the real move too. The alternative "share of all
// moments" is Pooled.K / len(outcomes) and differs by the inquiry share
// (about 8% in the seed). The other reading, "share of generated questions
// that were wrong" (K over #{Generated = inquiry}), cannot give the seed's
// 0.11: with 8% real inquiries and an inquiry agree rate near 0.1, almost
// every generated question is wrong, so it would be near 0.9.
func SpuriousInquiry[M Moment](outcomes []M) MoveRate {
	return SpuriousRate(outcomes, MoveInquiry)
}

// CriticalRecall is the share of moments where the developer asserted a
// fault (Real == critical) that the simulator also made critical (seed 000:
// the terse-only prefix "craters critical recall (0.24 -> 0.17)"). See
// [Recall].
func CriticalRecall[M Moment](outcomes []M) MoveRate {
	return Recall(outcomes, MoveCritical)
}
