package analysis

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confusion is a square contingency table of two raters' labels of the same
// items: Counts[i][j] items were labelled Labels[i] by rater A and
// Labels[j] by rater B.
type Confusion struct {
	Labels []string // sorted
	Counts [][]int
}

// NewConfusion tallies the labels a[i] and b[i] of item i. Labels is the
// sorted union of the labels used. It is an error for a and b to differ in
// length.
func NewConfusion(a, b []string) (Confusion, error) {
	if len(a) != len(b) {
		return Confusion{}, fmt.Errorf("confusion: %d labels against %d", len(a), len(b))
	}
	seen := map[string]bool{}
	for i := range a {
		seen[a[i]], seen[b[i]] = true, true
	}
	c := ConfusionOf(sortedKeys(seen))
	for i := range a {
		c.Add(a[i], b[i], 1)
	}
	return c, nil
}

// ConfusionOf returns an empty table over labels, which it sorts.
func ConfusionOf(labels []string) Confusion {
	ls := append([]string(nil), labels...)
	sort.Strings(ls)
	c := Confusion{Labels: ls, Counts: make([][]int, len(ls))}
	for i := range c.Counts {
		c.Counts[i] = make([]int, len(ls))
	}
	return c
}

// Add counts n more items labelled la by A and lb by B; labels not in
// c.Labels are ignored, and reported by the false result.
func (c *Confusion) Add(la, lb string, n int) bool {
	i, j := sort.SearchStrings(c.Labels, la), sort.SearchStrings(c.Labels, lb)
	if i == len(c.Labels) || c.Labels[i] != la || j == len(c.Labels) || c.Labels[j] != lb {
		return false
	}
	c.Counts[i][j] += n
	return true
}

// Kappa is Cohen's kappa with its large-sample interval.
type Kappa struct {
	N        int     // items
	Observed float64 // p_o, the share of items with equal labels
	Expected float64 // p_e = sum_i p_i. p_.i, agreement expected by chance
	Kappa    float64 // (p_o - p_e) / (1 - p_e)
	SE       float64 // large-sample standard error (Fleiss, Cohen & Everitt 1969)
	Lo, Hi   float64 // Kappa -/+ z(0.975) SE, the 95% Wald interval clipped to [-1, 1]; NaN when Degenerate
	// Degenerate says why the table has no interval (no items, a single
	// category, perfect agreement with a zero standard error); "" otherwise.
	Degenerate string
}

// CohenKappa returns Cohen's kappa of the table (Cohen 1960, "A coefficient
// of agreement for nominal scales", Educational and Psychological
// Measurement 20, 37-46):
//
//	kappa = (p_o - p_e) / (1 - p_e),  p_o = sum_i p_ii,  p_e = sum_i p_i. p_.i
//
// with p_ij = Counts[i][j] / n, and the large-sample standard error of
// Fleiss, Cohen & Everitt (1969), "Large sample standard errors of kappa
// and weighted kappa", Psychological Bulletin 72(5), 323-327 (also
// Fleiss, Levin & Paik 2003, section 18.1):
//
//	var = [ sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2
//	      + (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
//	      - (kappa - p_e (1 - kappa))^2 ] / (n (1 - p_e)^2)
//
// and the 95% interval kappa +/- z(0.975) SE, clipped to [-1, 1] (kappa's
// range; the Wald bounds are not range-respecting). With no items every
// field but N is NaN; when p_e = 1 (both raters used one and the same label
// throughout) Kappa, SE and the bounds are NaN. In both cases, and when every
// item agrees so that SE = 0 (an interval of zero width that would claim
// certainty from a finite sample), the bounds are NaN and Degenerate says
// why.
func CohenKappa(c Confusion) Kappa {
	k := len(c.Labels)
	var n int
	for i := range k {
		for j := range k {
			n += c.Counts[i][j]
		}
	}
	nan := math.NaN()
	r := Kappa{N: n, Observed: nan, Expected: nan, Kappa: nan, SE: nan, Lo: nan, Hi: nan}
	if n == 0 {
		r.Degenerate = "no items"
		return r
	}
	nf := float64(n)
	p := func(i, j int) float64 { return float64(c.Counts[i][j]) / nf }
	row := make([]float64, k)
	col := make([]float64, k)
	var diag int
	for i := range k {
		diag += c.Counts[i][i]
		for j := range k {
			row[i] += p(i, j)
			col[j] += p(i, j)
		}
	}
	r.Observed = float64(diag) / nf
	r.Expected = 0
	for i := range k {
		r.Expected += row[i] * col[i]
	}
	if r.Expected >= 1 {
		r.Degenerate = "a single category: both raters used one label throughout"
		return r
	}
	kap := (r.Observed - r.Expected) / (1 - r.Expected)
	r.Kappa = kap
	var a, b float64
	for i := range k {
		for j := range k {
			if i == j {
				t := 1 - (row[i]+col[i])*(1-kap)
				a += p(i, i) * t * t
			} else {
				s := col[i] + row[j]
				b += p(i, j) * s * s
			}
		}
	}
	c3 := kap - r.Expected*(1-kap)
	// The numerator is a difference of terms of order one; when they
	// cancel (one rater used one label throughout, kappa 0), what is left
	// is rounding residue of about 1e-16 of them, whose square root would
	// print as an interval [-0.000, 0.000]. Residue below 1e-12 of the
	// terms is 0.
	num := a + (1-kap)*(1-kap)*b - c3*c3
	if num <= 1e-12*(a+(1-kap)*(1-kap)*b+c3*c3) {
		num = 0
	}
	v := num / (nf * (1 - r.Expected) * (1 - r.Expected))
	r.SE = math.Sqrt(v)
	z := distuv.UnitNormal.Quantile(1 - (1-Confidence)/2)
	if r.SE == 0 {
		r.Degenerate = "no disagreement: the standard error is 0, so the table gives no interval"
		if diag < n {
			r.Degenerate = "the standard error is 0 (" + singleRater(row, col) + "), so the table gives no interval"
		}
		return r
	}
	r.Lo, r.Hi = math.Max(-1, kap-z*r.SE), math.Min(1, kap+z*r.SE)
	return r
}

// singleRater says which rater used one label throughout, the usual reason
// a table with disagreement has a standard error of 0.
func singleRater(row, col []float64) string {
	one := func(m []float64) bool {
		for _, v := range m {
			if v == 1 {
				return true
			}
		}
		return false
	}
	switch {
	case one(row):
		return "the first rater used one label throughout"
	case one(col):
		return "the second rater used one label throughout"
	}
	return "the disagreements leave kappa's variance at 0"
}
