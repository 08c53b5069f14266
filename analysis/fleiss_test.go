package analysis

import (
	"math"
	"testing"
)

// TestFleissKappaWorkedExample: the worked example of Wikipedia's "Fleiss'
// kappa" article (10 items, 14 raters, 5 categories), published kappa
// 0.210. By hand: the column totals 20, 28, 39, 21, 32 of 140 give
// Pe = (20^2 + 28^2 + 39^2 + 21^2 + 32^2) / 140^2 = 4170 / 19600 = 0.21276;
// the rows' agreeing pairs sum_j n(n-1) are 182, 46, 56, 80, 60, 84, 44,
// 32, 52, 52 = 688, so Pbar = 688 / (10 * 182) = 0.37802, and
// kappa = (0.37802 - 0.21276) / (1 - 0.21276) = 0.20993.
func TestFleissKappaWorkedExample(t *testing.T) {
	counts := [][]int{
		{0, 0, 0, 0, 14},
		{0, 2, 6, 4, 2},
		{0, 0, 3, 5, 6},
		{0, 3, 9, 2, 0},
		{2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0},
		{3, 2, 6, 3, 0},
		{2, 5, 3, 2, 2},
		{6, 5, 2, 1, 0},
		{0, 2, 2, 3, 7},
	}
	k, err := FleissKappa(counts)
	if err != nil {
		t.Fatal(err)
	}
	want := (688.0/1820 - 4170.0/19600) / (1 - 4170.0/19600)
	if math.Abs(k-want) > 1e-12 || math.Abs(k-0.210) > 0.0005 {
		t.Errorf("FleissKappa = %.6f, want %.6f (published 0.210)", k, want)
	}
}

// TestFleissKappaTwoRaters: with two raters Fleiss' kappa is Scott's pi:
// 4 items, raters agree on a, a, b and split a/b on the last: ratings
// a 5, b 3 of 8, Pe = (25 + 9) / 64 = 0.53125, Pbar = 3/4, kappa =
// (0.75 - 0.53125) / 0.46875 = 0.4667.
func TestFleissKappaTwoRaters(t *testing.T) {
	k, err := FleissKappa([][]int{{2, 0}, {2, 0}, {0, 2}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (0.75 - 0.53125) / 0.46875; math.Abs(k-want) > 1e-12 {
		t.Errorf("FleissKappa = %.6f, want %.6f", k, want)
	}
}

func TestFleissKappaRejectsUnequalRaters(t *testing.T) {
	if _, err := FleissKappa([][]int{{2, 1}, {1, 1}}); err == nil {
		t.Error("items with 3 and 2 ratings: no error")
	}
}
