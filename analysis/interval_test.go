package analysis

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	// Critical values of Student's t: NIST/SEMATECH e-Handbook of Statistical
	// Methods, section 1.3.6.7.2 (3 decimals), here to 6 decimals as R's
	// qt() prints them and as an independent mpmath evaluation of the
	// incomplete beta function gives them. Two have closed forms:
	// df = 1 is Cauchy, t = tan(pi (p - 1/2)) = tan(0.475 pi) = 12.706205;
	// df = 2 has t = (2p - 1) / sqrt(2p(1-p)) = 0.95 / sqrt(0.04875) = 4.302653.
	tests := []struct {
		name  string
		p, df float64
		want  float64
	}{
		{"0.975 on 1 df is 12.706205", 0.975, 1, 12.706205},
		{"0.975 on 2 df is 4.302653", 0.975, 2, 4.302653},
		{"0.975 on 9 df is 2.262157", 0.975, 9, 2.262157},
		{"0.975 on 19 df is 2.093024", 0.975, 19, 2.093024},
		{"0.95 on 9 df is 1.833113", 0.95, 9, 1.833113},
		{"0.025 on 9 df is -2.262157", 0.025, 9, -2.262157},
		{"p of 1 is NaN", 1, 9, math.NaN()},
		{"0 df is NaN", 0.975, 0, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFloat(t, "tQuantile", tQuantile(tt.p, tt.df), tt.want, 5e-7)
		})
	}
}

func TestMeanCI(t *testing.T) {
	one2ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	nan := math.NaN()
	// 1..10 by hand: mean 5.5, sum of squares about the mean 82.5, so
	// sd = sqrt(82.5/9) = sqrt(55/6) = 3.027650 and se = sd/sqrt(10) =
	// 0.957427. 95%: 5.5 -/+ 2.262157 * 0.957427 = 5.5 -/+ 2.165851 ->
	// [3.334149, 7.665851]. 90%: t(0.95, 9) = 1.833113, half width 1.755072
	// -> [3.744928, 7.255072].
	tests := []struct {
		name  string
		xs    []float64
		level float64
		want  Interval
	}{
		{"one to ten at 95% is 3.334 to 7.666", one2ten, 0.95,
			Interval{Mean: 5.5, Lo: 3.334149, Hi: 7.665851, SD: 3.027650, N: 10}},
		{"one to ten at 90% is 3.745 to 7.255", one2ten, 0.90,
			Interval{Mean: 5.5, Lo: 3.744928, Hi: 7.255072, SD: 3.027650, N: 10}},
		{"constant sample has zero width", []float64{0.4, 0.4, 0.4}, 0.95,
			Interval{Mean: 0.4, Lo: 0.4, Hi: 0.4, SD: 0, N: 3}},
		{"single value has NaN bounds", []float64{0.7}, 0.95,
			Interval{Mean: 0.7, Lo: nan, Hi: nan, SD: nan, N: 1}},
		{"empty sample is all NaN", nil, 0.95,
			Interval{Mean: nan, Lo: nan, Hi: nan, SD: nan, N: 0}},
		{"level outside (0,1) gives NaN bounds", one2ten, 1.5,
			Interval{Mean: 5.5, Lo: nan, Hi: nan, SD: 3.027650, N: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MeanCI(tt.xs, tt.level)
			checkInterval(t, got, tt.want, 1e-6)
		})
	}
}

func checkInterval(t *testing.T, got, want Interval, tol float64) {
	t.Helper()
	checkFloat(t, "Mean", got.Mean, want.Mean, tol)
	checkFloat(t, "Lo", got.Lo, want.Lo, tol)
	checkFloat(t, "Hi", got.Hi, want.Hi, tol)
	checkFloat(t, "SD", got.SD, want.SD, tol)
	if got.N != want.N {
		t.Errorf("N = %d, want %d", got.N, want.N)
	}
}

// Student's sleep data (Cushny & Peebles 1905, as analysed by Student 1908;
// R's datasets::sleep): extra hours of sleep for 10 patients under two
// drugs.
var (
	sleepDrug1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleepDrug2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

func TestPairedT(t *testing.T) {
	inf := math.Inf(1)
	nan := math.NaN()
	tests := []struct {
		name       string
		a, b       []float64
		wantErr    bool
		mean, lo   float64
		hi, tstat  float64
		df, p, tol float64
	}{
		// R: t.test(extra ~ group, data = sleep, paired = TRUE) prints
		// t = -4.0621, df = 9, p-value = 0.002833, 95 percent CI
		// -2.4598858 -0.7001142, mean difference -1.58 (group 1 - group 2).
		{name: "sleep data: drug 2 adds 1.58 h, t 4.0621, p 0.002833",
			a: sleepDrug2, b: sleepDrug1,
			mean: 1.58, lo: 0.7001142, hi: 2.4598858, tstat: 4.0621, df: 9, p: 0.002833, tol: 5e-5},
		{name: "sleep data reversed flips the sign",
			a: sleepDrug1, b: sleepDrug2,
			mean: -1.58, lo: -2.4598858, hi: -0.7001142, tstat: -4.0621, df: 9, p: 0.002833, tol: 5e-5},
		// By hand: d = (0.5, 0, 0.5), mean 1/3, sd = sqrt(1/12), se = 1/6,
		// t = 2 on 2 df. For 2 df P(T > t) = 1/2 - t / (2 sqrt(t^2 + 2)), so
		// p = 1 - 2/sqrt(6) = 0.183503; CI 1/3 -/+ 4.302653/6.
		{name: "three pairs by hand: t 2 on 2 df, p 0.1835",
			a: []float64{1, 0.5, 1}, b: []float64{0.5, 0.5, 0.5},
			mean: 1.0 / 3, lo: -0.383775, hi: 1.050442, tstat: 2, df: 2, p: 0.183503, tol: 1e-6},
		{name: "equal non-zero differences give infinite t and p 0",
			a: []float64{1, 2, 3}, b: []float64{0, 1, 2},
			mean: 1, lo: 1, hi: 1, tstat: inf, df: 2, p: 0, tol: 1e-12},
		{name: "all-zero differences give NaN t",
			a: []float64{1, 2}, b: []float64{1, 2},
			mean: 0, lo: 0, hi: 0, tstat: nan, df: 1, p: nan, tol: 1e-12},
		{name: "one pair gives NaN t, df and p",
			a: []float64{1}, b: []float64{0},
			mean: 1, lo: nan, hi: nan, tstat: nan, df: nan, p: nan, tol: 1e-12},
		{name: "length mismatch is an error", a: []float64{1, 2}, b: []float64{1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PairedT(tt.a, tt.b)
			if tt.wantErr {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkFloat(t, "MeanDiff", got.MeanDiff, tt.mean, tt.tol)
			checkFloat(t, "CI.Mean", got.CI.Mean, tt.mean, tt.tol)
			checkFloat(t, "CI.Lo", got.CI.Lo, tt.lo, tt.tol)
			checkFloat(t, "CI.Hi", got.CI.Hi, tt.hi, tt.tol)
			checkFloat(t, "T", got.T, tt.tstat, tt.tol)
			checkFloat(t, "DF", got.DF, tt.df, 0)
			checkFloat(t, "P", got.P, tt.p, tt.tol)
		})
	}
}
