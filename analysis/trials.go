package analysis

import (
	"math"
	"sort"
)

// This file holds the between-trial spread of UserBench (SPEC section 9,
// trials): an experiment with trials = k makes k generations per point in
// every setting, each its own request. A developer's accuracy is then the
// mean over the trials (their hits over all k trials divided by their
// moments over all k, which is the mean of the k per-trial accuracies
// when every trial scores the same moments), and the developer-level
// statistics and the developer bootstrap run on those means as on a
// single trial's. What the k trials add is how far they disagree, which
// Spread measures.

// TrialPoints counts Count points of one setting at which Trials trials
// were counted (scored or failed; at least two), Hits of them hits, and
// whose generated moves differ among those trials (Disagree) or not.
type TrialPoints struct {
	Trials, Hits int
	Disagree     bool
	Count        int
}

// TrialScore is one developer's scored moments in one trial (from 0).
type TrialScore struct {
	Developer     string
	Trial         int
	Hits, Moments int
}

// TrialSpread is the between-trial spread of one setting.
type TrialSpread struct {
	// Trials is k, the number of trials of the setting (the trials
	// TrialScore rows name).
	Trials int
	// Points is the number of points with at least two counted trials:
	// the n of Disagree and PointSD.
	Points int
	// Disagree is the share of those points whose trials generated
	// different moves (a failed trial's move counting as none), with its
	// Wilson 95% interval; NaN P and bounds for no point.
	Disagree Proportion
	// HitsDisagree is the share of those points whose trials differ in
	// hit or miss: the points at which the trials change the accuracy.
	HitsDisagree Proportion
	// PointSD is the mean over those points of the sample standard
	// deviation (n - 1 denominator) of the trials' hits (1 for a hit, 0
	// for a miss): sqrt(h (c - h) / (c (c - 1))) for h hits of c trials.
	// NaN for no point.
	PointSD float64
	// PerTrial is the macro accuracy of each trial alone (the mean over
	// developers of hits / moments in that trial, developers with no
	// moment in it left out), in trial order; NaN for a trial that scored
	// no moment.
	PerTrial []float64
	// Macro is the mean of PerTrial with its t 95% interval over the k
	// trials (MeanCI): how far the headline moves from one trial to the
	// next. Macro.SD is the standard deviation of the per-trial macro
	// accuracies; Macro.N is the number of trials with a moment.
	Macro Interval
}

// Spread returns the between-trial spread of one setting from its points'
// trials (grouped as TrialPoints) and its per-developer, per-trial scores.
// The share of points whose trials disagree is a proportion over points,
// with its Wilson interval (Wilson 1927; SPEC section 9); the per-point
// standard deviation of the hits is its sample standard deviation (any
// textbook, e.g. Moore, McCabe & Craig, section 1.3), averaged over the
// points; the trial-level interval is the t interval of the mean of the k
// per-trial macro accuracies ([MeanCI]), which treats the trials as k
// independent draws of the whole study.
func Spread(points []TrialPoints, scores []TrialScore) TrialSpread {
	var s TrialSpread
	disagree, hitsDiffer := 0, 0
	var sdSum float64
	for _, p := range points {
		if p.Trials < 2 || p.Count <= 0 {
			continue
		}
		s.Points += p.Count
		if p.Disagree {
			disagree += p.Count
		}
		if p.Hits > 0 && p.Hits < p.Trials {
			hitsDiffer += p.Count
		}
		c, h := float64(p.Trials), float64(p.Hits)
		sdSum += float64(p.Count) * math.Sqrt(h*(c-h)/(c*(c-1)))
	}
	nan := Proportion{P: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	s.Disagree, s.HitsDisagree, s.PointSD = nan, nan, math.NaN()
	if s.Points > 0 {
		s.Disagree, _ = Wilson(disagree, s.Points, Confidence)
		s.HitsDisagree, _ = Wilson(hitsDiffer, s.Points, Confidence)
		s.PointSD = sdSum / float64(s.Points)
	}

	// Per trial: the mean over developers of their accuracy in it.
	type acc struct {
		sum float64
		n   int
	}
	byTrial := map[int]*acc{}
	for _, x := range scores {
		a := byTrial[x.Trial]
		if a == nil {
			a = &acc{}
			byTrial[x.Trial] = a
		}
		if x.Moments > 0 {
			a.sum += float64(x.Hits) / float64(x.Moments)
			a.n++
		}
	}
	trials := make([]int, 0, len(byTrial))
	for t := range byTrial {
		trials = append(trials, t)
	}
	sort.Ints(trials)
	s.Trials = len(trials)
	var valid []float64
	for _, t := range trials {
		a := byTrial[t]
		v := math.NaN()
		if a.n > 0 {
			v = a.sum / float64(a.n)
			valid = append(valid, v)
		}
		s.PerTrial = append(s.PerTrial, v)
	}
	s.Macro = MeanCI(valid, Confidence)
	return s
}
