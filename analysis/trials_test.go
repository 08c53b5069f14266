package analysis

import (
	"math"
	"testing"
)

// TestTrialsHandComputed: two developers, two points each, three trials,
// every real move directive (the rows of queries TestStudyTrials,
// simulator s):
//
//	      trial 0   trial 1   trial 2   hits  moves differ
//	ann a1 directive directive directive 3/3   no
//	ann a2 directive critical  critical  1/3   yes
//	bob b1 approve   inquiry   approve   0/3   yes
//	bob b2 directive critical  directive 2/3   yes
//
// Accuracy averaged over trials: ann (1 + 1/2 + 1/2) / 3 = 2/3 = 4 hits
// of 6 moments, bob (1/2 + 0 + 1/2) / 3 = 1/3 = 2 of 6; macro (2/3 +
// 1/3) / 2 = 1/2. Per-trial macro accuracies: trial 0 (1 + 1/2) / 2 =
// 0.75, trial 1 (1/2 + 0) / 2 = 0.25, trial 2 (1/2 + 1/2) / 2 = 0.5;
// their mean 0.5 (the macro of the trial means, as it must be with equal
// moments per trial), SD sqrt((0.25^2 + 0.25^2 + 0) / 2) = 0.25, t
// interval 0.5 -/+ t(0.975, 2) 0.25 / sqrt 3 with t(0.975, 2) =
// 4.302652729911275 (Student's t table): [-0.121034, 1.121034].
// Points whose moves differ: 3 of 4, Wilson 95% [0.300642, 0.954413];
// whose hits differ: a2 and b2, 2 of 4, [0.150039, 0.849961] (Wilson
// bounds from (p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n),
// z = 1.959964, evaluated in python). Per-point SD of the hits:
// a1 0, a2 sqrt(1*2 / (3*2)) = 0.577350, b1 0, b2 0.577350; mean
// 0.288675.
func TestTrialsHandComputed(t *testing.T) {
	close := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("%s = %.6f, want %.6f", what, got, want)
		}
	}
	// Accuracy averaged over trials: the developers' hits and moments of
	// all three trials, counted (what queries.LoadStudy's scores give).
	m := MacroAccuracy([]Outcomes{
		{Outcome{"ann", "directive", "directive"}, 4}, {Outcome{"ann", "directive", "critical"}, 2},
		{Outcome{"bob", "directive", "directive"}, 2}, {Outcome{"bob", "directive", "approve"}, 3}, {Outcome{"bob", "directive", "inquiry"}, 1},
	})
	close("ann", m.Developers[0].Accuracy, 2.0/3)
	close("bob", m.Developers[1].Accuracy, 1.0/3)
	close("macro", m.Accuracy.Mean, 0.5)

	s := Spread([]TrialPoints{
		{Trials: 3, Hits: 0, Disagree: true, Count: 1},
		{Trials: 3, Hits: 1, Disagree: true, Count: 1},
		{Trials: 3, Hits: 2, Disagree: true, Count: 1},
		{Trials: 3, Hits: 3, Disagree: false, Count: 1},
	}, []TrialScore{
		{"ann", 0, 2, 2}, {"ann", 1, 1, 2}, {"ann", 2, 1, 2},
		{"bob", 0, 1, 2}, {"bob", 1, 0, 2}, {"bob", 2, 1, 2},
	})
	if s.Trials != 3 || s.Points != 4 || s.Macro.N != 3 {
		t.Fatalf("trials %d, points %d, macro n %d: want 3, 4, 3", s.Trials, s.Points, s.Macro.N)
	}
	close("disagree", s.Disagree.P, 0.75)
	close("disagree lo", s.Disagree.Lo, 0.300642)
	close("disagree hi", s.Disagree.Hi, 0.954413)
	close("hits disagree", s.HitsDisagree.P, 0.5)
	close("hits disagree lo", s.HitsDisagree.Lo, 0.150039)
	close("hits disagree hi", s.HitsDisagree.Hi, 0.849961)
	close("point SD", s.PointSD, 0.288675)
	for i, want := range []float64{0.75, 0.25, 0.5} {
		close("trial macro", s.PerTrial[i], want)
	}
	close("trial mean", s.Macro.Mean, 0.5)
	close("trial SD", s.Macro.SD, 0.25)
	close("trial lo", s.Macro.Lo, -0.121034)
	close("trial hi", s.Macro.Hi, 1.121034)
}

// TestSpreadEmpty: no point with two trials and no score give NaN shares
// and no trials, never a division by zero.
func TestSpreadEmpty(t *testing.T) {
	s := Spread([]TrialPoints{{Trials: 1, Hits: 1, Count: 5}}, nil)
	if s.Points != 0 || s.Trials != 0 || !math.IsNaN(s.Disagree.P) || !math.IsNaN(s.PointSD) || !math.IsNaN(s.Macro.Mean) {
		t.Errorf("%+v, want no points, NaN shares", s)
	}
}
