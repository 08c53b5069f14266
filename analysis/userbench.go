package analysis

import (
	"math"
	"math/bits"
	"sort"
)

// This file holds the UserBench uncertainty statistics of SPEC section 9:
// the developer bootstrap of the macro accuracy, the paired comparison of
// two simulators over developers (a bootstrap interval and a sign-flip
// permutation test), the family of every pair with Holm's adjustment and
// the top cluster, the small-sample rule, and the terse-only recovery with
// its own interval. The bootstrap is [ClusterBootstrap] with the developers
// as the clusters of one stratum.

// MinDevelopers is the small-sample rule of UserBench: a simulator in a
// condition (or a cell of a sweep) scored on fewer developers than this is
// shown with its n, but left out of the statistics that compare
// simulators (the pairwise comparisons and the top cluster), with a note
// naming it. Ten is where a percentile bootstrap over clusters stops
// being dominated by one or two clusters: with fewer than about ten
// clusters cluster-resampling intervals undercover badly (Cameron,
// Gelbach & Miller 2008, "Bootstrap-based improvements for inference with
// clustered errors", Review of Economics and Statistics 90(3), Table 1).
const MinDevelopers = 10

// SignFlipB is the number of random sign patterns of [SignFlip] when it
// does not enumerate them all, and SignFlipExactMax the largest number of
// non-zero differences it enumerates exactly (2^16 = 65,536 patterns).
const (
	SignFlipB        = 9999
	SignFlipExactMax = 16
)

// Accuracies returns the Accuracy of each developer score, in order.
func Accuracies(devs []DeveloperScore) []float64 {
	out := make([]float64, len(devs))
	for i, d := range devs {
		out[i] = d.Accuracy
	}
	return out
}

// weightedMean is sum c_j x_j / sum c_j; NaN when every count is zero.
func weightedMean(x []float64, c []int) float64 {
	var s float64
	n := 0
	for j, v := range x {
		s += float64(c[j]) * v
		n += c[j]
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// MeanBootstrap returns the mean of xs (one value per developer) with its
// percentile bootstrap interval, resampling the developers with
// replacement ([ClusterBootstrap], one stratum of len(xs) clusters; Efron
// & Tibshirani 1993, An Introduction to the Bootstrap, section 13.3).
// For the macro accuracy xs are the per-developer accuracies; for a paired
// comparison the per-developer differences. No values give NaN bounds; a
// single value gives the value as both bounds, since every resample
// repeats it (the interval says nothing then: the report's n beside it and
// [MinDevelopers] do).
func MeanBootstrap(xs []float64, opts BootstrapOptions) BootInterval {
	return ClusterBootstrap([]int{len(xs)}, opts, func(c [][]int) float64 { return weightedMean(xs, c[0]) })
}

// MacroBootstrap is [MeanBootstrap] of the per-developer accuracies of a
// [Macro]: the headline accuracy with its developer bootstrap interval
// (SPEC section 9: "UserBench resamples developers").
func MacroBootstrap(m Macro, opts BootstrapOptions) BootInterval {
	return MeanBootstrap(Accuracies(m.Developers), opts)
}

// SignFlip returns the two-sided p value of the sign-flip permutation test
// of the mean of paired differences d against zero (Fisher 1935, The
// Design of Experiments, section 21; Good 2005, Permutation, Parametric
// and Bootstrap Tests of Hypotheses, section 3.7.2): under the null that
// each developer's difference is symmetric about zero, every pattern of
// signs is equally likely, and
//
//	p = #{patterns s : |sum s_i d_i| >= |sum d_i|} / #patterns.
//
// Zero differences do not change any sum and are dropped. With at most
// [SignFlipExactMax] non-zero differences every one of the 2^n patterns is
// enumerated (exact); beyond, [SignFlipB] patterns are drawn from
// [NewBootstrapRand](seed) (one Uint64 per pattern, bit i the sign of the
// i-th non-zero difference; more than 64 differences take further words)
// and p = (1 + hits) / (B + 1), which counts the observed pattern and is
// never zero (Phipson & Smyth 2010, "Permutation p-values should never be
// zero", Statistical Applications in Genetics and Molecular Biology 9(1)).
// No non-zero difference gives p = 1. Sums are compared with a relative
// tolerance of 1e-9, so that a pattern whose sum equals the observed one
// up to rounding counts as a tie.
func SignFlip(d []float64, seed uint64) float64 {
	var x []float64
	var obs float64
	for _, v := range d {
		if v != 0 && !math.IsNaN(v) {
			x = append(x, v)
			obs += v
		}
	}
	n := len(x)
	if n == 0 {
		return 1
	}
	var scale float64
	for _, v := range x {
		scale += math.Abs(v)
	}
	thr := math.Abs(obs) - 1e-9*scale
	if n <= SignFlipExactMax {
		hits := 0
		for s := range 1 << n {
			var t float64
			for i, v := range x {
				if s>>i&1 == 1 {
					t -= v
				} else {
					t += v
				}
			}
			if math.Abs(t) >= thr {
				hits++
			}
		}
		return float64(hits) / float64(int(1)<<n)
	}
	if seed == 0 {
		seed = DefaultBootstrapSeed
	}
	r := NewBootstrapRand(seed)
	hits := 0
	for range SignFlipB {
		// The pattern's sum is the observed sum less twice the
		// differences whose sign flips (the set bits).
		t := obs
		for lo := 0; lo < n; lo += 64 {
			w := r.Uint64()
			if rest := n - lo; rest < 64 {
				w &= 1<<rest - 1
			}
			for w != 0 {
				i := bits.TrailingZeros64(w)
				t -= 2 * x[lo+i]
				w &= w - 1
			}
		}
		if math.Abs(t) >= thr {
			hits++
		}
	}
	return float64(1+hits) / float64(SignFlipB+1)
}

// Scored is one simulator's per-developer accuracy in one condition, for
// [CompareSimulators].
type Scored struct {
	Simulator  string
	Developers []DeveloperScore // sorted by developer ([PerDeveloper])
}

// SimulatorPair is the paired comparison of simulator A with B on the
// developers scored by both: d = accuracy of A - accuracy of B per
// developer.
type SimulatorPair struct {
	A, B       string
	Developers int          // developers paired
	Diff       BootInterval // mean of d with its developer bootstrap interval
	P          float64      // sign-flip permutation p ([SignFlip]); NaN for no developer
	Holm       float64      // P adjusted by [Holm] over every pair of the comparison
}

// Comparison is every pair of the simulators of one condition.
type Comparison struct {
	Ranked []string           // simulators compared, by macro accuracy, highest first (ties by name)
	Macro  map[string]float64 // macro accuracy of each compared simulator
	Pairs  []SimulatorPair    // A ranked above B, in rank order of A then B
	// Top is the simulator of highest macro accuracy; TopCluster lists it
	// and every simulator whose pair with it has Holm >= alpha, in rank
	// order: the simulators the data cannot tell from the top.
	Top        string
	TopCluster []string
	// Small lists, by name, the simulators with fewer than MinDevelopers
	// developers: left out of Ranked, Pairs and the cluster.
	Small []string
}

// CompareSimulators compares every pair of the simulators scored in one
// condition, paired per developer (SPEC section 9): for simulators A and B
// and the developers scored by both, the mean of d = acc_A - acc_B with a
// developer bootstrap interval ([MeanBootstrap], opts) and the sign-flip
// permutation p ([SignFlip], seed opts.Seed), then Holm's adjustment over
// the m = k(k-1)/2 pairs of the k simulators compared. The top cluster is
// the top simulator with every one whose Holm-adjusted p against it is at
// least alpha (0.05 when alpha is 0). Simulators with fewer than
// [MinDevelopers] developers are left out and listed in Small.
//
// The test is over developers, not moments: the headline is a mean over
// developers, and a developer's moments are not independent of each
// other, so a moment-level test (McNemar on the hits of the same points)
// would count one developer's tendency as many independent pieces of
// evidence. Pairs are compared on the developers both simulators scored,
// so a pair's mean difference can differ from the difference of the two
// macro accuracies when the simulators' developers differ.
func CompareSimulators(sims []Scored, alpha float64, opts BootstrapOptions) Comparison {
	if alpha <= 0 {
		alpha = 0.05
	}
	c := Comparison{Macro: map[string]float64{}}
	byName := map[string]map[string]float64{}
	for _, s := range sims {
		if len(s.Developers) < MinDevelopers {
			c.Small = append(c.Small, s.Simulator)
			continue
		}
		m := map[string]float64{}
		for _, d := range s.Developers {
			m[d.Developer] = d.Accuracy
		}
		byName[s.Simulator] = m
		c.Macro[s.Simulator] = mean(Accuracies(s.Developers))
		c.Ranked = append(c.Ranked, s.Simulator)
	}
	sort.Strings(c.Small)
	sort.SliceStable(c.Ranked, func(i, j int) bool {
		a, b := c.Macro[c.Ranked[i]], c.Macro[c.Ranked[j]]
		if a != b {
			return a > b
		}
		return c.Ranked[i] < c.Ranked[j]
	})
	var ps []float64
	for i, a := range c.Ranked {
		for _, b := range c.Ranked[i+1:] {
			p := pairScores(byName[a], byName[b])
			pr := SimulatorPair{A: a, B: b, Developers: len(p.Diffs), Diff: MeanBootstrap(p.Diffs, opts), P: math.NaN()}
			if len(p.Diffs) > 0 {
				pr.P = SignFlip(p.Diffs, opts.Resolved().Seed)
			}
			c.Pairs = append(c.Pairs, pr)
			ps = append(ps, pr.P)
		}
	}
	for i, h := range Holm(ps) {
		c.Pairs[i].Holm = h
	}
	if len(c.Ranked) > 0 {
		c.Top = c.Ranked[0]
		c.TopCluster = []string{c.Top}
		for _, pr := range c.Pairs {
			if pr.A == c.Top && !(pr.Holm < alpha) {
				c.TopCluster = append(c.TopCluster, pr.B)
			}
		}
	}
	return c
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Recovery is the terse-only ablation's share of the profile's gain.
type Recovery struct {
	Developers int // developers scored in all three conditions
	// Gain is the profile's gain, mean over those developers of
	// acc(profile) - acc(noprofile), with its developer bootstrap interval.
	Gain BootInterval
	// Share is (mean acc(terse) - mean acc(noprofile)) / Gain.Estimate with
	// its developer bootstrap interval (the same replicates as Gain).
	Share BootInterval
	// Estimable is whether Gain's interval excludes zero. When it does not,
	// the share divides by a gain the data cannot tell from zero and is
	// not reported (a ratio over a near-zero denominator prints 172% or
	// -350% from noise).
	Estimable bool
}

// TerseRecovery returns the share of the profile's gain that the
// terse-only prefix recovers, on the developers scored in all three
// conditions:
//
//	share = (mean_d t_d - mean_d n_d) / (mean_d p_d - mean_d n_d)
//
// with t, n, p the per-developer accuracies with the terse prefix, without
// profile and with profile. Both the gain and the share get percentile
// intervals from the same developer bootstrap replicates ([ClusterReplicates];
// a ratio of means, the bootstrap's plug-in estimate, Efron & Tibshirani
// 1993, section 10.2); replicates whose gain is zero are dropped from the
// share's.
func TerseRecovery(noprofile, terse, profile []DeveloperScore, opts BootstrapOptions) Recovery {
	maps := make([]map[string]float64, 3)
	for i, s := range [][]DeveloperScore{noprofile, terse, profile} {
		maps[i] = map[string]float64{}
		for _, d := range s {
			maps[i][d.Developer] = d.Accuracy
		}
	}
	var n, t, p []float64
	for _, d := range sortedKeys(maps[0]) {
		tv, ok1 := maps[1][d]
		pv, ok2 := maps[2][d]
		if ok1 && ok2 {
			n, t, p = append(n, maps[0][d]), append(t, tv), append(p, pv)
		}
	}
	r := Recovery{Developers: len(n)}
	gain := func(c []int) float64 { return weightedMean(p, c) - weightedMean(n, c) }
	share := func(c []int) float64 {
		g := gain(c)
		if g == 0 {
			return math.NaN()
		}
		return (weightedMean(t, c) - weightedMean(n, c)) / g
	}
	o := opts.Resolved()
	ones := make([]int, len(n))
	for i := range ones {
		ones[i] = 1
	}
	r.Gain = BootInterval{Estimate: gain(ones), B: o.B, Lo: math.NaN(), Hi: math.NaN()}
	r.Share = BootInterval{Estimate: share(ones), B: o.B, Lo: math.NaN(), Hi: math.NaN()}
	if len(n) == 0 {
		return r
	}
	var gs, ss []float64
	ClusterReplicates([]int{len(n)}, o, func(_ int, c [][]int) {
		gs = append(gs, gain(c[0]))
		if s := share(c[0]); math.IsNaN(s) {
			r.Share.Dropped++
		} else {
			ss = append(ss, s)
		}
	})
	r.Gain.Lo, r.Gain.Hi = PercentileInterval(gs, o.Level)
	r.Share.Lo, r.Share.Hi = PercentileInterval(ss, o.Level)
	r.Estimable = r.Gain.Lo > 0 || r.Gain.Hi < 0
	return r
}
