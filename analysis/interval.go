package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the confidence level of every interval that the study-level
// functions (MacroAccuracy, PairedAccuracy, Sweep, Surface, ...) report:
// SPEC section 5 fixes 95%.
const Confidence = 0.95

// Interval is a sample mean with a two-sided confidence interval.
type Interval struct {
	Mean float64 // sample mean
	Lo   float64 // lower bound of the interval
	Hi   float64 // upper bound of the interval
	SD   float64 // sample standard deviation (n-1 denominator)
	N    int     // sample size
}

// MeanCI returns the mean of xs with its two-sided Student t confidence
// interval at the given level (0.95 for a 95% interval):
//
//	mean +/- t(1-(1-level)/2, n-1) * sd / sqrt(n)
//
// where sd is the sample standard deviation with n-1 in the denominator and
// t(p, df) is the p quantile of Student's t distribution with df degrees of
// freedom (Student 1908; any introductory text, e.g. Moore, McCabe & Craig,
// Introduction to the Practice of Statistics, section 7.1).
//
// With no values Mean is NaN. With one value Mean is that value and SD, Lo and
// Hi are NaN: a single observation carries no information about spread. A
// level outside (0, 1) gives NaN bounds. A zero standard deviation gives
// Lo = Hi = Mean.
func MeanCI(xs []float64, level float64) Interval {
	n := len(xs)
	iv := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), SD: math.NaN(), N: n}
	if n == 0 {
		return iv
	}
	if n == 1 {
		iv.Mean = xs[0]
		return iv
	}
	iv.Mean, iv.SD = stat.MeanStdDev(xs, nil)
	q := tQuantile(1-(1-level)/2, float64(n-1))
	half := q * iv.SD / math.Sqrt(float64(n))
	iv.Lo, iv.Hi = iv.Mean-half, iv.Mean+half
	return iv
}

// tQuantile returns the p quantile of Student's t distribution with df
// degrees of freedom, or NaN when p is outside (0, 1) or df is not positive.
func tQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// tTwoSided returns the two-sided p-value P(|T| >= |t|) for Student's t with
// df degrees of freedom. An infinite t gives 0; a NaN t or df gives NaN.
func tTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
}

// TTest is the result of a paired Student t test.
type TTest struct {
	MeanDiff float64  // mean of the differences a[i] - b[i]
	CI       Interval // 95% t interval of the mean difference (CI.Mean == MeanDiff)
	T        float64  // t statistic, MeanDiff / (sd / sqrt(n))
	DF       float64  // degrees of freedom, n - 1
	P        float64  // two-sided p-value, P(|T_df| >= |t|)
}

// PairedT runs the two-sided paired t test of a against b. With d[i] =
// a[i] - b[i], n pairs, mean dbar and sample standard deviation s_d:
//
//	t = dbar / (s_d / sqrt(n)),  df = n - 1,  p = 2 * P(T_df >= |t|)
//
// and CI is [MeanCI] of d at [Confidence] (Student 1908; the worked example
// is Cushny & Peebles' sleep data as analysed by Student, t = 4.0621 on 9 df).
//
// It is an error for a and b to differ in length. With fewer than two pairs
// T, DF and P are NaN. When every difference is equal, s_d is zero: T is
// +/-Inf with P = 0 if the differences are non-zero, and NaN if they are all
// zero.
func PairedT(a, b []float64) (TTest, error) {
	if len(a) != len(b) {
		return TTest{}, fmt.Errorf("paired t test: %d values against %d", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return oneSampleT(d), nil
}

// oneSampleT tests the mean of d against zero, as PairedT does.
func oneSampleT(d []float64) TTest {
	ci := MeanCI(d, Confidence)
	r := TTest{MeanDiff: ci.Mean, CI: ci, T: math.NaN(), DF: math.NaN(), P: math.NaN()}
	n := len(d)
	if n < 2 {
		return r
	}
	r.DF = float64(n - 1)
	r.T = ci.Mean / (ci.SD / math.Sqrt(float64(n)))
	r.P = tTwoSided(r.T, r.DF)
	return r
}
