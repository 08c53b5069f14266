package analysis

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Correlation is a correlation coefficient with its sample size.
type Correlation struct {
	R float64 // the coefficient, in [-1, 1]
	N int     // number of (x, y) pairs
	// P is the two-sided p-value of R = 0 from
	// t = R * sqrt((N-2) / (1-R^2)) on N-2 degrees of freedom.
	P float64
}

// Pearson returns the Pearson product-moment correlation of x and y,
//
//	r = sum (x_i - xbar)(y_i - ybar) / sqrt(sum (x_i - xbar)^2 * sum (y_i - ybar)^2)
//
// (Pearson 1895; computed by gonum stat.Correlation), with the usual t test of
// r = 0: t = r sqrt((n-2)/(1-r^2)) on n-2 df. On Anscombe's
// first quartet r = 0.8164, t = 4.2415, p = 0.00217.
//
// It is an error for x and y to differ in length. R is NaN with fewer than
// two pairs, when x or y is constant, or when any value is NaN; P is NaN with
// fewer than three pairs. |R| = 1 gives P = 0.
func Pearson(x, y []float64) (Correlation, error) {
	if len(x) != len(y) {
		return Correlation{}, fmt.Errorf("pearson: %d x values against %d y values", len(x), len(y))
	}
	n := len(x)
	c := Correlation{R: math.NaN(), N: n, P: math.NaN()}
	if n < 2 || hasNaN(x) || hasNaN(y) {
		return c, nil
	}
	c.R = stat.Correlation(x, y, nil)
	if math.IsNaN(c.R) {
		return c, nil
	}
	// Rounding can push a perfect correlation a hair past 1.
	c.R = math.Max(-1, math.Min(1, c.R))
	if n < 3 {
		return c, nil
	}
	df := float64(n - 2)
	if math.Abs(c.R) == 1 {
		c.P = 0
		return c, nil
	}
	c.P = tTwoSided(c.R*math.Sqrt(df/(1-c.R*c.R)), df)
	return c, nil
}

// Spearman returns Spearman's rank correlation rho of x and y: the Pearson
// correlation of their ranks, tied values sharing the average of the ranks
// they span (Spearman 1904; Kendall & Gibbons, Rank Correlation Methods).
// Without ties this equals 1 - 6 sum d_i^2 / (n (n^2 - 1)), d_i the rank
// differences. P uses the t approximation of [Pearson] on the ranks, which is
// what R's cor.test(method = "spearman", exact = FALSE) reports; for n below
// about 10 it is rough.
//
// Errors and NaN cases are those of [Pearson].
func Spearman(x, y []float64) (Correlation, error) {
	if len(x) != len(y) {
		return Correlation{}, fmt.Errorf("spearman: %d x values against %d y values", len(x), len(y))
	}
	if hasNaN(x) || hasNaN(y) {
		return Correlation{R: math.NaN(), N: len(x), P: math.NaN()}, nil
	}
	return Pearson(ranks(x), ranks(y))
}

// ranks returns the 1-based ranks of xs, ties given their average rank.
func ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		// Positions i..j-1 hold ranks i+1..j; their average is (i+1+j)/2.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

func hasNaN(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
