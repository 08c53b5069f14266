package analysis

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/ub-bench/ub"
)

// quantile7Test is Hyndman & Fan's type 7 quantile, written again here so
// that the intervals below are checked against a second implementation.
func quantile7Test(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	h := float64(len(s)-1) * p
	lo := math.Floor(h)
	if int(lo)+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[int(lo)] + (h-lo)*(s[int(lo)+1]-s[int(lo)])
}

func TestCompareAccuracyPairsByDeveloperAndTakesBMinusA(t *testing.T) {
	// d1-d3 are scored by both; d4 only by A, d5 only by B (left out).
	// Differences B - A: 0.1, 0.2, 0.6, mean 0.3. Sign-flip by hand: of
	// the 8 sign patterns of (0.1, 0.2, 0.6) the sums are +-0.9, +-0.3,
	// +-0.5, +-0.7; only +-0.9 reach |0.9|: p = 2/8 = 0.25.
	a := []DeveloperScore{{"d1", 2, 10, 0.2}, {"d2", 4, 10, 0.4}, {"d3", 1, 10, 0.1}, {"d4", 9, 10, 0.9}}
	b := []DeveloperScore{{"d1", 3, 10, 0.3}, {"d2", 6, 10, 0.6}, {"d3", 7, 10, 0.7}, {"d5", 0, 5, 0}}
	opts := BootstrapOptions{B: 400, Seed: 9}
	got := CompareAccuracy(a, b, opts)
	if got.Developers != 3 || got.MomentsA != 30 || got.MomentsB != 30 || !got.Small {
		t.Fatalf("paired %+v", got)
	}
	checkFloat(t, "A", got.A.Estimate, (0.2+0.4+0.1)/3, 1e-12)
	checkFloat(t, "B", got.B.Estimate, (0.3+0.6+0.7)/3, 1e-12)
	checkFloat(t, "B - A", got.Diff.Estimate, 0.3, 1e-12)
	checkFloat(t, "sign-flip p", got.P, 0.25, 1e-12)
	// The interval, replayed: per replicate three draws r.IntN(3) of the
	// documented generator, the mean difference of the drawn developers.
	d := []float64{0.1, 0.2, 0.6}
	r := NewBootstrapRand(9)
	var reps []float64
	for range 400 {
		var s float64
		for range 3 {
			s += d[r.IntN(3)]
		}
		reps = append(reps, s/3)
	}
	checkFloat(t, "lo", got.Diff.Lo, quantile7Test(reps, 0.025), 1e-12)
	checkFloat(t, "hi", got.Diff.Hi, quantile7Test(reps, 0.975), 1e-12)
	// Swapping the sides turns the difference around.
	if back := CompareAccuracy(b, a, opts); math.Abs(back.Diff.Estimate+0.3) > 1e-12 || math.Abs(back.Diff.Hi+got.Diff.Lo) > 1e-12 {
		t.Errorf("B, A: %+v, want the negated difference of %+v", back.Diff, got.Diff)
	}
	// A simulator against itself: no difference, p = 1.
	self := CompareAccuracy(a, a, opts)
	if self.Diff.Estimate != 0 || self.Diff.Lo != 0 || self.Diff.Hi != 0 || self.P != 1 || self.Developers != 4 {
		t.Errorf("self: %+v", self)
	}
	if none := CompareAccuracy(a, nil, opts); none.Developers != 0 || !math.IsNaN(none.P) || !math.IsNaN(none.Diff.Hi) {
		t.Errorf("no common developer: %+v", none)
	}
}

func TestCompareFidelity(t *testing.T) {
	// zeta (A) and alpha (B) on 8 tasks of one domain, three trials each,
	// as in TestPairwiseFidelity: f pairs (A, B) give 15 pairs with only A
	// faithful and 3 with only B: exact p = 0.007537841796875 (python3 -c
	// 'from math import comb; print(2*sum(comb(18,i) for i in
	// range(4))/2**18)'); success 12 and 0: p = 2/2^12. B is named first
	// in sort order, so the sign of B - A is checked too. A's fourth trial
	// of task 0 has no partner and is left out.
	fa := []int{1, 1, 1, 1, 1, 0, 1, 0}
	fb := []int{0, 0, 0, 0, 0, 1, 1, 0}
	var eps []ub.FidelityEpisode
	for j := range 8 {
		ra, rb := 0.0, 0.0
		if j < 6 {
			ra = 1
		}
		if j < 2 {
			rb = 1
		}
		for k := range 3 {
			eps = append(eps, fep("zeta", "d", fmt.Sprint(j), k, fa[j], ra), fep("alpha", "d", fmt.Sprint(j), k, fb[j], rb))
			o := fep("other", "d", fmt.Sprint(j), k, 1, 1)
			o.Agent = "agent2"
			eps = append(eps, o)
		}
	}
	eps = append(eps, fep("zeta", "d", "0", 3, 0, 0))
	opts := BootstrapOptions{B: 300, Seed: 4}
	got := CompareFidelity(eps, "zeta", "alpha", 1, opts)
	p := got.Pair
	if p.A != "zeta" || p.B != "alpha" || p.Pairs != 24 || p.Tasks != 8 || p.Confounded || p.Reason != "" || p.F.B != 15 || p.F.C != 3 {
		t.Fatalf("pair %+v", p)
	}
	checkFloat(t, "p f", p.F.P, 0.007537841796875, 1e-15)
	checkFloat(t, "p success", p.Success.P, 2.0/4096, 1e-15)
	checkFloat(t, "UFS A", got.A.UFS.Estimate, 6.0/8, 1e-12) // the unpaired fourth trial is left out
	checkFloat(t, "UFS B", got.B.UFS.Estimate, 2.0/8, 1e-12)
	checkFloat(t, "B - A UFS", p.DiffUFS.Estimate, 2.0/8-6.0/8, 1e-12)
	checkFloat(t, "B - A R", p.DiffR.Estimate, 2.0/8-6.0/8, 1e-12)
	// The interval, replayed: one domain of 8 tasks, 8 draws per
	// replicate; every task holds three pairs alike, so a replicate's
	// difference is the mean of fb - fa over the drawn tasks.
	r := NewBootstrapRand(4)
	var reps []float64
	for range 300 {
		var s float64
		for range 8 {
			j := r.IntN(8)
			s += float64(fb[j] - fa[j])
		}
		reps = append(reps, s/8)
	}
	checkFloat(t, "lo", p.DiffUFS.Lo, quantile7Test(reps, 0.025), 1e-12)
	checkFloat(t, "hi", p.DiffUFS.Hi, quantile7Test(reps, 0.975), 1e-12)
	if got.A.Simulator != "zeta" || got.B.Simulator != "alpha" || len(got.Agents) != 1 {
		t.Errorf("sides %q, %q, agents %v", got.A.Simulator, got.B.Simulator, got.Agents)
	}

	self := CompareFidelity(eps, "zeta", "zeta", 1, opts)
	if s := self.Pair; s.Pairs != 25 || s.F.P != 1 || s.F.B != 0 || s.F.C != 0 || s.DiffUFS.Estimate != 0 || s.DiffUFS.Lo != 0 || s.DiffUFS.Hi != 0 ||
		math.Signbit(s.DiffUFS.Estimate) {
		t.Errorf("self: %+v", s)
	}
	conf := CompareFidelity(eps, "zeta", "other", 1, opts)
	if c := conf.Pair; !c.Confounded || !math.IsNaN(c.DiffR.Estimate) || !math.IsNaN(c.Success.P) || math.IsNaN(c.F.P) || len(conf.Agents) != 2 {
		t.Errorf("confounded: %+v", c)
	}
	if none := CompareFidelity(eps, "zeta", "nobody", 1, opts); none.Pair.Reason != "no common task" || !math.IsNaN(none.Pair.DiffUFS.Hi) {
		t.Errorf("no common task: %+v", none.Pair)
	}
}

func TestRegressed(t *testing.T) {
	for _, c := range []struct {
		hi, margin float64
		want       bool
	}{
		{-0.03, 0.02, true},    // confidently worse by more than the margin
		{-0.02, 0.02, false},   // at the margin: not beyond it
		{-0.03, 0.05, false},   // worse, within the margin
		{0.01, 0, false},       // the interval reaches no loss
		{math.NaN(), 0, false}, // no interval: no verdict
	} {
		if got := Regressed(BootInterval{Hi: c.hi}, c.margin); got != c.want {
			t.Errorf("Regressed(hi %v, margin %v) = %v, want %v", c.hi, c.margin, got, c.want)
		}
	}
}
