package analysis

import (
	"math"
	"strings"
	"testing"
)

func TestCohenKappa(t *testing.T) {
	// The worked example of Cohen's kappa on Wikipedia (two readers, 50
	// proposals): yes/yes 20, yes/no 5, no/yes 10, no/no 15, so p_o = 0.7,
	// p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5 and kappa = 0.4.
	//
	// The standard error by hand from Fleiss, Cohen & Everitt (1969),
	// with p_11 = .4, p_12 = .1, p_21 = .2, p_22 = .3, rows .5 .5, columns
	// .6 .4, 1 - kappa = .6:
	//   diagonal  .4 (1 - 1.1 * .6)^2 + .3 (1 - .9 * .6)^2 = .04624 + .06348 = .10972
	//   off       .36 * (.1 (.6 + .5)^2 + .2 (.4 + .5)^2) = .36 * .283 = .10188
	//   last      (.4 - .5 * .6)^2 = .01
	//   var       (.10972 + .10188 - .01) / (50 * .25) = .016128, SE = .1269961
	c := ConfusionOf([]string{"yes", "no"})
	c.Add("yes", "yes", 20)
	c.Add("yes", "no", 5)
	c.Add("no", "yes", 10)
	c.Add("no", "no", 15)
	k := CohenKappa(c)
	checkFloat(t, "Observed", k.Observed, 0.7, 1e-12)
	checkFloat(t, "Expected", k.Expected, 0.5, 1e-12)
	checkFloat(t, "Kappa", k.Kappa, 0.4, 1e-12)
	checkFloat(t, "SE", k.SE, math.Sqrt(0.016128), 1e-9)
	checkFloat(t, "Lo", k.Lo, 0.4-1.959963985*math.Sqrt(0.016128), 1e-8)
	if k.N != 50 {
		t.Errorf("N = %d", k.N)
	}

	t.Run("pairs tally like the table", func(t *testing.T) {
		var a, b []string
		for _, cell := range []struct {
			a, b string
			n    int
		}{{"yes", "yes", 20}, {"yes", "no", 5}, {"no", "yes", 10}, {"no", "no", 15}} {
			for range cell.n {
				a, b = append(a, cell.a), append(b, cell.b)
			}
		}
		c2, err := NewConfusion(a, b)
		if err != nil {
			t.Fatal(err)
		}
		checkFloat(t, "Kappa", CohenKappa(c2).Kappa, 0.4, 1e-12)
	})
	t.Run("perfect agreement on several labels is 1 with SE 0", func(t *testing.T) {
		c, _ := NewConfusion([]string{"a", "b", "c", "a"}, []string{"a", "b", "c", "a"})
		k := CohenKappa(c)
		checkFloat(t, "Kappa", k.Kappa, 1, 1e-12)
		checkFloat(t, "SE", k.SE, 0, 1e-12)
	})
	t.Run("one label throughout is NaN", func(t *testing.T) {
		c, _ := NewConfusion([]string{"a", "a"}, []string{"a", "a"})
		if k := CohenKappa(c); !math.IsNaN(k.Kappa) {
			t.Errorf("Kappa = %v, want NaN", k.Kappa)
		}
	})
	t.Run("lengths must match", func(t *testing.T) {
		if _, err := NewConfusion([]string{"a"}, nil); err == nil {
			t.Error("no error")
		}
	})
	t.Run("unknown labels are refused", func(t *testing.T) {
		c := ConfusionOf([]string{"a"})
		if c.Add("a", "z", 1) {
			t.Error("Add accepted an unknown label")
		}
	})
}

// TestKappaZeroSEWithDisagreement: the table [[85, 0], [1, 0]] (the second
// rater said "no" to all 86 items, the first said "yes" once) has one
// disagreement, so "no disagreement" would be false. By hand: po = 85/86,
// pe = (85/86)(86/86) + (1/86)(0) = 85/86, kappa = 0; the
// Fleiss-Cohen-Everitt variance is 0 (every term carries col[1] = 0 or
// 1 - kappa times a zero cell), so there is no interval, and the reason
// names the rater who used one label.
func TestKappaZeroSEWithDisagreement(t *testing.T) {
	k := CohenKappa(Confusion{Labels: []string{"no", "yes"}, Counts: [][]int{{85, 0}, {1, 0}}})
	if k.Kappa != 0 || !math.IsNaN(k.Lo) {
		t.Fatalf("kappa %v [%v, %v], want 0 with no interval", k.Kappa, k.Lo, k.Hi)
	}
	if strings.Contains(k.Degenerate, "no disagreement") || !strings.Contains(k.Degenerate, "second rater used one label") {
		t.Errorf("degenerate reason %q", k.Degenerate)
	}
}

// TestKappaZeroSEFromResidue: the first rater says "a" on all 17 items,
// the second "a" on 10 and "b" on 7: counts {{10, 7}, {0, 0}}. By hand,
// row = (1, 0), col = (10/17, 7/17), p_o = p_e = 10/17, kappa = 0, and the
// Fleiss-Cohen-Everitt numerator is
// p_aa (1 - (1 + 10/17))^2 + p_ab (10/17 + 0)^2 - (0 - 10/17)^2
// = (10/17)^3 + (7/17)(10/17)^2 - (10/17)^2 = (10/17)^2 (17/17 - 1) = 0.
// The standard error is 0, so there is no interval. Before, the floating
// sum left about 1e-17, an SE of 4e-9, and the report printed
// "0.000 [-0.000, 0.000]". The same with three labels, {{1,2,3},{0..},{0..}}:
// p_e = 1/6 = p_o, and the numerator is again 0 by the same identity.
func TestKappaZeroSEFromResidue(t *testing.T) {
	for _, c := range [][][]int{{{10, 7}, {0, 0}}, {{1, 2, 3}, {0, 0, 0}, {0, 0, 0}}} {
		k := CohenKappa(Confusion{Labels: []string{"a", "b", "c"}[:len(c)], Counts: c})
		if k.Kappa != 0 || k.SE != 0 || !math.IsNaN(k.Lo) || !math.IsNaN(k.Hi) || !strings.Contains(k.Degenerate, "first rater used one label") {
			t.Errorf("%v: kappa %v SE %v [%v, %v] %q; want 0, SE 0, no interval", c, k.Kappa, k.SE, k.Lo, k.Hi, k.Degenerate)
		}
	}
}
