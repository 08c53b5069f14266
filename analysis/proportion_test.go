package analysis

import (
	"math"
	"testing"
)

func TestBinomialIntervals(t *testing.T) {
	// Newcombe (1998), "Two-sided confidence intervals for the single
	// proportion: comparison of seven methods", Statistics in Medicine 17,
	// 857-872, Table I: method 3 (Wilson score, no continuity correction)
	// and method 5 (Clopper-Pearson exact), 95%, to 4 decimals.
	// The 0/20 and 20/20 exact bounds have a closed form: the upper bound
	// solves (1-p)^20 = 0.025, p = 1 - 0.025^(1/20) = 0.168433.
	tests := []struct {
		name     string
		k, n     int
		interval BinomialInterval
		lo, hi   float64
		tol      float64
	}{
		{"Wilson 81/263 is 0.2553 to 0.3662", 81, 263, Wilson, 0.2553, 0.3662, 5e-5},
		{"Wilson 15/148 is 0.0624 to 0.1605", 15, 148, Wilson, 0.0624, 0.1605, 5e-5},
		{"Wilson 0/20 is 0 to 0.1611", 0, 20, Wilson, 0, 0.1611, 5e-5},
		{"Wilson 1/29 is 0.0061 to 0.1718", 1, 29, Wilson, 0.0061, 0.1718, 5e-5},
		{"Clopper-Pearson 81/263 is 0.2527 to 0.3676", 81, 263, ClopperPearson, 0.2527, 0.3676, 5e-5},
		{"Clopper-Pearson 15/148 is 0.0578 to 0.1617", 15, 148, ClopperPearson, 0.0578, 0.1617, 5e-5},
		{"Clopper-Pearson 0/20 is 0 to 0.1684", 0, 20, ClopperPearson, 0, 0.1684, 5e-5},
		{"Clopper-Pearson 1/29 is 0.0009 to 0.1776", 1, 29, ClopperPearson, 0.0009, 0.1776, 5e-5},
		{"Clopper-Pearson 0/20 upper is 1 - 0.025^(1/20)", 0, 20, ClopperPearson,
			0, 1 - math.Pow(0.025, 1.0/20), 1e-9},
		{"Clopper-Pearson 20/20 lower is 0.025^(1/20)", 20, 20, ClopperPearson,
			math.Pow(0.025, 1.0/20), 1, 1e-9},
		{"Wilson 20/20 reaches 1 exactly", 20, 20, Wilson, 1 - 0.1611, 1, 5e-5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.interval(tt.k, tt.n, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			checkFloat(t, "P", got.P, float64(tt.k)/float64(tt.n), 1e-15)
			checkFloat(t, "Lo", got.Lo, tt.lo, tt.tol)
			checkFloat(t, "Hi", got.Hi, tt.hi, tt.tol)
			if got.K != tt.k || got.N != tt.n {
				t.Errorf("K/N = %d/%d, want %d/%d", got.K, got.N, tt.k, tt.n)
			}
			if tt.k == 0 && got.Lo != 0 {
				t.Errorf("Lo = %g at k = 0, want exactly 0", got.Lo)
			}
			if tt.k == tt.n && got.Hi != 1 {
				t.Errorf("Hi = %g at k = n, want exactly 1", got.Hi)
			}
		})
	}
}

func TestBinomialIntervalErrors(t *testing.T) {
	tests := []struct {
		name  string
		k, n  int
		level float64
	}{
		{"no trials is an error", 0, 0, 0.95},
		{"more successes than trials is an error", 5, 4, 0.95},
		{"negative successes is an error", -1, 4, 0.95},
		{"level 1 is an error", 1, 4, 1},
	}
	for _, tt := range tests {
		for name, f := range map[string]BinomialInterval{"Wilson": Wilson, "ClopperPearson": ClopperPearson} {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				if _, err := f(tt.k, tt.n, tt.level); err == nil {
					t.Error("no error")
				}
			})
		}
	}
}

func TestErrorShare(t *testing.T) {
	// Seed 001: tau2-bench retail, 50 conversations reviewed, 40% with a
	// simulator error, so 30 passes. Wilson on the pass share by hand:
	// p = 0.6, z = 1.959964, z^2 = 3.841459; centre (0.6 + 0.038415) /
	// 1.076829 = 0.592865; half 1.959964 * sqrt(0.0048 + 0.000384146) /
	// 1.076829 = 0.131051; pass [0.461814, 0.723916], so the error share is
	// 0.4 with bounds flipped: [1 - 0.723916, 1 - 0.461814] =
	// [0.276084, 0.538186]. Clopper-Pearson for 30/50 is [0.451794, 0.735922]
	// (found independently by bisection on the binomial tail sums in mpmath),
	// so the error share is [0.264078, 0.548206].
	tests := []struct {
		name          string
		passes, total int
		interval      BinomialInterval
		lo, hi        float64
	}{
		{"retail 40% errors, Wilson by default", 30, 50, nil, 0.276084, 0.538186},
		{"retail 40% errors, Wilson explicitly", 30, 50, Wilson, 0.276084, 0.538186},
		{"retail 40% errors, Clopper-Pearson", 30, 50, ClopperPearson, 0.264078, 0.548206},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ErrorShare(tt.passes, tt.total, 0.95, tt.interval)
			if err != nil {
				t.Fatal(err)
			}
			if got.K != 20 || got.N != 50 {
				t.Errorf("K/N = %d/%d, want 20/50", got.K, got.N)
			}
			checkFloat(t, "P", got.P, 0.4, 1e-12)
			checkFloat(t, "Lo", got.Lo, tt.lo, 1e-6)
			checkFloat(t, "Hi", got.Hi, tt.hi, 1e-6)
		})
	}
	t.Run("bad counts are an error", func(t *testing.T) {
		if _, err := ErrorShare(51, 50, 0.95, nil); err == nil {
			t.Error("no error")
		}
	})
}
