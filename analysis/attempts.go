package analysis

// AttemptShare is a review's simulator error share over every attempt of
// its episodes beside the share over the kept ones. tau2 re-runs a
// simulation when its hallucination checker fires and keeps only the last
// attempt: the kept episodes are the survivors, and their error share
// leaves out every attempt the checker threw away. Each discarded attempt
// is one where the checker found the simulator making things up, so it
// counts as an attempt with a simulator error.
type AttemptShare struct {
	Kept       Proportion // the review's share: episodes with a simulator error of the decided kept episodes
	Discarded  int        // attempts discarded before those episodes (the hallucination checker fired)
	PerAttempt Proportion // (errors + discarded) of (episodes + discarded)
}

// AttemptErrorShare is the kept-only share of errors among episodes and
// the share over every attempt, with discarded attempts added as errors;
// both with interval at level (nil: Wilson).
func AttemptErrorShare(errors, episodes, discarded int, level float64, interval BinomialInterval) (AttemptShare, error) {
	kept, err := ErrorShare(episodes-errors, episodes, level, interval)
	if err != nil {
		return AttemptShare{}, err
	}
	all, err := ErrorShare(episodes-errors, episodes+discarded, level, interval)
	if err != nil {
		return AttemptShare{}, err
	}
	return AttemptShare{Kept: kept, Discarded: discarded, PerAttempt: all}, nil
}
