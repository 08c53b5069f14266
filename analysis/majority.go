package analysis

// DeveloperMajority is one developer's most frequent real move and its
// share of their moments.
type DeveloperMajority struct {
	Developer string
	N         int     // scored moments
	Move      string  // the most frequent real move (ties: the first by name)
	Share     float64 // its share of the developer's moments, in [0, 1]
}

// Majority is the majority line of a set of outcomes.
type Majority struct {
	Developers []DeveloperMajority // sorted by developer
	// Line is the macro mean over developers of Share, with its 95% t
	// interval: the accuracy of a simulator that always says each
	// developer's favourite move.
	Line Interval
}

// MajorityLine returns, for each developer, the share of their most
// frequent real move in outcomes, max_m p_m, and the unweighted mean over
// developers (issue 14): the accuracy a simulator earns by always
// predicting each developer's most frequent move, knowing the mix. It is
// never below the chance line, sum_m p_m^2 <= max_m p_m (a mean of the p_m
// weighted by themselves cannot exceed their largest). Generated moves are
// ignored.
func MajorityLine[M Moment](outcomes []M) Majority {
	count := realMix(outcomes)
	devs := sortedKeys(count)
	var m Majority
	vals := make([]float64, len(devs))
	for i, d := range devs {
		n, best, bestN := 0, "", -1
		for _, mv := range sortedKeys(count[d]) {
			c := count[d][mv]
			n += c
			if c > bestN {
				best, bestN = mv, c
			}
		}
		share := float64(bestN) / float64(n)
		m.Developers = append(m.Developers, DeveloperMajority{Developer: d, N: n, Move: best, Share: share})
		vals[i] = share
	}
	m.Line = MeanCI(vals, Confidence)
	return m
}

// ProfileLines are the chance and majority lines formed from each
// developer's profile-session moves and scored on their held-out moments.
type ProfileLines struct {
	Chance   Chance
	Majority Majority
	// Unprofiled lists, sorted, the scored developers with no labelled
	// profile-session move: left out of both lines.
	Unprofiled []string
}

// LinesFromProfile returns the chance and majority lines of SPEC section 5
// out of sample: each developer's move mix p is read from profile, the
// moves of their profile sessions (Real and Count; data the scoring never
// sees), and scored against q, the mix of the real moves of their scored
// moments in scored:
//
//	chance_d   = sum_m p_d(m) q_d(m)   (the expected accuracy of sampling
//	                                    the next move from the profile mix)
//	majority_d = q_d(argmax_m p_d(m))  (the accuracy of always saying the
//	                                    profile's most frequent move; ties:
//	                                    the first by name)
//
// each averaged over the developers with both, with the 95% t interval
// ([MeanCI]). When profile and scored moves follow the same mix, chance_d
// estimates the collision probability sum_m p_m^2 without the in-sample
// bias of [ChanceLine] (whose empirical mix of n moments adds about
// (1 - sum p^2) / n), and majority_d the share of the developer's modal
// move without [MajorityLine]'s bias: a modal move read from the moments
// it is scored on is the best constant in hindsight, an oracle no
// simulator has. Generated moves are ignored. DeveloperChance.N and
// DeveloperMajority.N count the scored moments.
func LinesFromProfile[M Moment](profile []Outcomes, scored []M) ProfileLines {
	prof := realMix(profile)
	held := realMix(scored)
	var pl ProfileLines
	var cv, mv []float64
	for _, d := range sortedKeys(held) {
		q := held[d]
		nq := 0
		for _, c := range q {
			nq += c
		}
		p, ok := prof[d]
		np := 0
		for _, c := range p {
			np += c
		}
		if !ok || np == 0 {
			pl.Unprofiled = append(pl.Unprofiled, d)
			continue
		}
		// sum_m p(m) q(m) in integers, one division.
		var dot int
		best, bestN := "", -1
		for _, m := range sortedKeys(p) {
			dot += p[m] * q[m]
			if p[m] > bestN {
				best, bestN = m, p[m]
			}
		}
		ch := float64(dot) / (float64(np) * float64(nq))
		share := float64(q[best]) / float64(nq)
		pl.Chance.Developers = append(pl.Chance.Developers, DeveloperChance{Developer: d, N: nq, Collision: ch})
		pl.Majority.Developers = append(pl.Majority.Developers, DeveloperMajority{Developer: d, N: nq, Move: best, Share: share})
		cv, mv = append(cv, ch), append(mv, share)
	}
	pl.Chance.Line = MeanCI(cv, Confidence)
	pl.Majority.Line = MeanCI(mv, Confidence)
	return pl
}
