package analysis

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Proportion is a binomial proportion K/N with a two-sided confidence
// interval.
type Proportion struct {
	K  int     // successes (or, from ErrorShare, conversations with an error)
	N  int     // trials
	P  float64 // K / N
	Lo float64 // lower bound of the interval
	Hi float64 // upper bound of the interval
}

// BinomialInterval computes a confidence interval for k successes in n
// trials at the given level. [Wilson] and [ClopperPearson] are
// BinomialIntervals.
type BinomialInterval func(k, n int, level float64) (Proportion, error)

func checkBinomial(k, n int, level float64) error {
	switch {
	case n <= 0:
		return fmt.Errorf("binomial interval: %d trials, need at least one", n)
	case k < 0 || k > n:
		return fmt.Errorf("binomial interval: %d successes out of %d trials", k, n)
	case !(level > 0 && level < 1):
		return fmt.Errorf("binomial interval: level %v is not in (0, 1)", level)
	}
	return nil
}

// Wilson returns k/n with the Wilson score interval (Wilson 1927), without
// continuity correction. With z = Phi^-1(1-(1-level)/2) and p = k/n:
//
//	(p + z^2/(2n) +/- z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)
//
// It is method 3 of Newcombe (1998), "Two-sided confidence intervals for the
// single proportion: comparison of seven methods", Statistics in Medicine 17,
// 857-872, whose Table I gives 81/263 -> 0.2553 to 0.3662. Unlike the Wald
// interval it stays inside [0, 1] and keeps close to nominal coverage for
// small n or p near 0 or 1, which is why SPEC section 7 makes it the default.
//
// It is an error for n to be below 1, k to be outside [0, n] or level to be
// outside (0, 1).
func Wilson(k, n int, level float64) (Proportion, error) {
	if err := checkBinomial(k, n, level); err != nil {
		return Proportion{}, err
	}
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	nf, p := float64(n), float64(k)/float64(n)
	z2 := z * z
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	pr := Proportion{K: k, N: n, P: p, Lo: centre - half, Hi: centre + half}
	// At k = 0 and k = n the bound is 0 or 1 exactly; rounding leaves a
	// residue of order 1e-17.
	if k == 0 {
		pr.Lo = 0
	}
	if k == n {
		pr.Hi = 1
	}
	return pr, nil
}

// ClopperPearson returns k/n with the Clopper-Pearson "exact" interval
// (Clopper & Pearson 1934), which inverts two one-sided binomial tests and so
// never covers less than the level. With a = 1 - level, its bounds are beta
// quantiles:
//
//	Lo = B^-1(a/2; k, n-k+1)     (0 when k = 0)
//	Hi = B^-1(1-a/2; k+1, n-k)   (1 when k = n)
//
// It is method 5 of Newcombe (1998), Table I: 81/263 -> 0.2527 to 0.3676.
//
// Errors are those of [Wilson].
func ClopperPearson(k, n int, level float64) (Proportion, error) {
	if err := checkBinomial(k, n, level); err != nil {
		return Proportion{}, err
	}
	a := 1 - level
	pr := Proportion{K: k, N: n, P: float64(k) / float64(n), Lo: 0, Hi: 1}
	if k > 0 {
		pr.Lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a / 2)
	}
	if k < n {
		pr.Hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a/2)
	}
	return pr, nil
}

// ErrorShare returns a simulator's error share from a human review (SPEC
// section 7; seed 001): passes conversations without a simulator error out
// of total reviewed. The pass share gets the interval, and the error share is
// its complement with the bounds flipped:
//
//	P = 1 - pass.P,  Lo = 1 - pass.Hi,  Hi = 1 - pass.Lo
//
// so one minus the upper pass bound is the lower error bound. K is the
// number of conversations with an error, total - passes. A nil interval
// means [Wilson]; pass [ClopperPearson] for the exact interval. Both are
// symmetric under k -> n - k, so the flip equals the interval computed on the
// error count directly; the flip is kept because it is how the review
// workbench reports it.
//
// Errors are those of the interval.
func ErrorShare(passes, total int, level float64, interval BinomialInterval) (Proportion, error) {
	if interval == nil {
		interval = Wilson
	}
	pass, err := interval(passes, total, level)
	if err != nil {
		return Proportion{}, fmt.Errorf("error share: %w", err)
	}
	return Proportion{
		K:  total - passes,
		N:  total,
		P:  1 - pass.P,
		Lo: 1 - pass.Hi,
		Hi: 1 - pass.Lo,
	}, nil
}

// Jeffreys returns k/n with the Jeffreys interval: the equal-tailed
// posterior interval of p under the Jeffreys prior Beta(1/2, 1/2), whose
// posterior after k successes in n trials is Beta(k+1/2, n-k+1/2). With
// a = 1 - level:
//
//	Lo = B^-1(a/2; k+1/2, n-k+1/2)     (0 when k = 0)
//	Hi = B^-1(1-a/2; k+1/2, n-k+1/2)   (1 when k = n)
//
// The boundary rule is that of Brown, Cai & DasGupta (2001), "Interval
// estimation for a binomial proportion", Statistical Science 16(2),
// 101-133, section 4.1.2, who recommend it with Wilson for small n.
//
// Errors are those of [Wilson].
func Jeffreys(k, n int, level float64) (Proportion, error) {
	if err := checkBinomial(k, n, level); err != nil {
		return Proportion{}, err
	}
	a := 1 - level
	post := distuv.Beta{Alpha: float64(k) + 0.5, Beta: float64(n-k) + 0.5}
	pr := Proportion{K: k, N: n, P: float64(k) / float64(n), Lo: 0, Hi: 1}
	if k > 0 {
		pr.Lo = post.Quantile(a / 2)
	}
	if k < n {
		pr.Hi = post.Quantile(1 - a/2)
	}
	return pr, nil
}

// IntervalByName returns the binomial interval named wilson, cp
// (Clopper-Pearson; also clopper-pearson) or jeffreys.
func IntervalByName(name string) (BinomialInterval, error) {
	switch name {
	case "", "wilson":
		return Wilson, nil
	case "cp", "clopper-pearson":
		return ClopperPearson, nil
	case "jeffreys":
		return Jeffreys, nil
	}
	return nil, fmt.Errorf("unknown interval %q (want wilson, cp or jeffreys)", name)
}
