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
