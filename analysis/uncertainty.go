package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// This file holds the uncertainty primitives that every study shares (SPEC
// section 9): a seeded, clustered and stratified percentile bootstrap, the
// exact McNemar test, Holm's step-down adjustment and tau2's pass^k
// estimator. Binomial intervals ([Wilson], [ClopperPearson], [Jeffreys]) are
// in proportion.go; the variance decomposition is in variance.go.

// DefaultBootstrapB is the number of bootstrap replicates when
// [BootstrapOptions.B] is zero (SPEC section 9: B = 1,000).
const DefaultBootstrapB = 1000

// DefaultBootstrapSeed is the seed when [BootstrapOptions.Seed] is zero. Any
// fixed value would do; it is fixed so that two runs on the same data print
// the same intervals.
const DefaultBootstrapSeed uint64 = 20260

// bootstrapStream is the second word of the PCG state. It is a constant so
// that the one seed a user gives fixes the whole replicate set.
const bootstrapStream uint64 = 0x9e3779b97f4a7c15

// BootstrapOptions configures [ClusterReplicates] and [ClusterBootstrap]. The
// zero value means B = [DefaultBootstrapB] replicates from
// [DefaultBootstrapSeed] at [Confidence].
type BootstrapOptions struct {
	B     int     // replicates; 0 means DefaultBootstrapB
	Seed  uint64  // PCG seed; 0 means DefaultBootstrapSeed
	Level float64 // interval level; 0 means Confidence
}

func (o BootstrapOptions) withDefaults() BootstrapOptions {
	if o.B <= 0 {
		o.B = DefaultBootstrapB
	}
	if o.Seed == 0 {
		o.Seed = DefaultBootstrapSeed
	}
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = Confidence
	}
	return o
}

// Resolved returns the options with their defaults filled in, for a report
// that states the B, seed and level it used.
func (o BootstrapOptions) Resolved() BootstrapOptions { return o.withDefaults() }

// NewBootstrapRand returns the generator [ClusterReplicates] draws from:
// math/rand/v2's PCG with state (seed, 0x9e3779b97f4a7c15). It is exported so
// a test (or a second implementation) can replay the exact draws.
func NewBootstrapRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, bootstrapStream))
}

// ClusterReplicates draws opts.B stratified cluster bootstrap replicates and
// calls each once per replicate, in order. sizes[s] is the number of
// clusters in stratum s (for UserProxyBench: the tasks of domain s; for
// UserBench: the developers, in one stratum). A replicate resamples, in
// every stratum independently and with replacement, as many clusters as the
// stratum holds (Davison & Hinkley 1997, Bootstrap Methods and their
// Application, section 3.7 and 3.8: stratified and two-stage resampling,
// here resampling the first stage, the cluster, and keeping every unit of a
// drawn cluster). counts[s][j] is how many times cluster j of stratum s was
// drawn in this replicate; it is reused between calls, so each must not
// keep it.
//
// The exact algorithm, so a replicate set can be recomputed elsewhere: r =
// [NewBootstrapRand](seed); for b = 1..B, for s = 0..len(sizes)-1 in order,
// reset counts[s] to zero and draw sizes[s] times j = r.IntN(sizes[s]),
// adding one to counts[s][j]. A stratum of zero clusters draws nothing.
func ClusterReplicates(sizes []int, opts BootstrapOptions, each func(b int, counts [][]int)) {
	opts = opts.withDefaults()
	r := NewBootstrapRand(opts.Seed)
	counts := make([][]int, len(sizes))
	for s, n := range sizes {
		counts[s] = make([]int, max(n, 0))
	}
	for b := range opts.B {
		for s, n := range sizes {
			c := counts[s]
			clear(c)
			for range n {
				c[r.IntN(n)]++
			}
		}
		each(b, counts)
	}
}

// BootInterval is a point estimate with its percentile bootstrap interval.
type BootInterval struct {
	Estimate float64 // the statistic on the data as observed
	Lo, Hi   float64 // percentile interval; NaN when no replicate is finite
	B        int     // replicates drawn
	Dropped  int     // replicates whose statistic was NaN (left out of the quantiles)
}

// ClusterBootstrap returns stat on the observed data (every count 1) and its
// percentile interval over the replicates of [ClusterReplicates]. stat
// receives the multiplicity of every cluster and returns the statistic of
// the weighted sample; a NaN replicate (a statistic undefined on that
// resample) is dropped and counted in Dropped.
func ClusterBootstrap(sizes []int, opts BootstrapOptions, stat func(counts [][]int) float64) BootInterval {
	opts = opts.withDefaults()
	ones := make([][]int, len(sizes))
	for s, n := range sizes {
		ones[s] = make([]int, max(n, 0))
		for j := range ones[s] {
			ones[s][j] = 1
		}
	}
	out := BootInterval{Estimate: stat(ones), B: opts.B}
	reps := make([]float64, 0, opts.B)
	ClusterReplicates(sizes, opts, func(_ int, counts [][]int) {
		v := stat(counts)
		if math.IsNaN(v) {
			out.Dropped++
			return
		}
		reps = append(reps, v)
	})
	out.Lo, out.Hi = PercentileInterval(reps, opts.Level)
	return out
}

// PercentileInterval returns the equal-tailed percentile interval of the
// replicates at the level (Efron & Tibshirani 1993, An Introduction to the
// Bootstrap, section 13.3): the (1-level)/2 and 1-(1-level)/2 quantiles. The
// quantile is Hyndman & Fan's (1996) type 7, the default of R and of
// Python's statistics.quantiles(method="inclusive"): with the values sorted
// x[0] <= ... <= x[n-1] and h = (n-1)p, x[floor h] + (h - floor h)
// (x[floor h + 1] - x[floor h]). With no values both bounds are NaN. reps is
// not modified.
func PercentileInterval(reps []float64, level float64) (lo, hi float64) {
	if len(reps) == 0 {
		return math.NaN(), math.NaN()
	}
	x := append([]float64(nil), reps...)
	sort.Float64s(x)
	a := (1 - level) / 2
	return quantile7(x, a), quantile7(x, 1-a)
}

// quantile7 is the type 7 quantile of sorted x at p in [0, 1].
func quantile7(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// McNemar is the exact McNemar test of two paired binary outcomes.
type McNemar struct {
	B int     // pairs where the first outcome is 1 and the second 0
	C int     // pairs where the first outcome is 0 and the second 1
	N int     // all pairs, concordant included
	P float64 // exact two-sided p value
}

// McNemarExact returns the exact two-sided McNemar test (McNemar 1947; the
// exact, conditional form of Agresti 2013, Categorical Data Analysis, 3rd
// ed., section 11.1.4): under the null the b discordant pairs of one kind
// among the b + c discordant pairs are Binomial(b + c, 1/2), and
//
//	p = min(1, 2 P(X <= min(b, c))),  X ~ Binomial(b + c, 1/2).
//
// With no discordant pair p = 1. n is the number of pairs, concordant ones
// included (it does not enter p). It is an error for b, c or n - b - c to be
// negative.
func McNemarExact(b, c, n int) (McNemar, error) {
	if b < 0 || c < 0 || n < b+c {
		return McNemar{}, fmt.Errorf("mcnemar: b = %d, c = %d of %d pairs", b, c, n)
	}
	r := McNemar{B: b, C: c, N: n, P: 1}
	m := b + c
	if m == 0 {
		return r, nil
	}
	r.P = math.Min(1, 2*binomLowerHalf(min(b, c), m))
	return r, nil
}

// McNemarPaired counts the discordant pairs of x and y (0/1 outcomes of the
// same items) and returns [McNemarExact]. It is an error for the lengths to
// differ or for a value to be other than 0 or 1.
func McNemarPaired(x, y []int) (McNemar, error) {
	if len(x) != len(y) {
		return McNemar{}, fmt.Errorf("mcnemar: %d outcomes against %d", len(x), len(y))
	}
	var b, c int
	for i := range x {
		if x[i]&^1 != 0 || y[i]&^1 != 0 {
			return McNemar{}, fmt.Errorf("mcnemar: pair %d is (%d, %d), want 0 or 1", i, x[i], y[i])
		}
		switch {
		case x[i] == 1 && y[i] == 0:
			b++
		case x[i] == 0 && y[i] == 1:
			c++
		}
	}
	return McNemarExact(b, c, len(x))
}

// binomLowerHalf returns P(X <= k) for X ~ Binomial(m, 1/2). For m up to
// 1000 it sums the binomial coefficients by the recurrence C(m, i+1) =
// C(m, i) (m - i) / (i + 1), which stays below 2^1000 and is exact in
// float64 for small m, and scales by 2^-m at the end; beyond, it sums the
// terms in log space.
func binomLowerHalf(k, m int) float64 {
	if k >= m {
		return 1
	}
	var s float64
	if m <= 1000 {
		c := 1.0
		for i := 0; i <= k; i++ {
			s += c
			c = c * float64(m-i) / float64(i+1)
		}
		return math.Min(1, math.Ldexp(s, -m))
	}
	lm, _ := math.Lgamma(float64(m + 1))
	for i := 0; i <= k; i++ {
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(m - i + 1))
		s += math.Exp(lm - li - lr - float64(m)*math.Ln2)
	}
	return math.Min(1, s)
}

// Holm returns Holm's (1979) step-down adjusted p values ("A simple
// sequentially rejective multiple test procedure", Scandinavian Journal of
// Statistics 6, 65-70), in the order of p. With the m finite p values sorted
// p(1) <= ... <= p(m):
//
//	adj(i) = min(1, max_{j <= i} (m - j + 1) p(j))
//
// so the adjusted values are monotone in the raw ones and never above 1;
// rejecting adj <= alpha controls the familywise error rate at alpha. A NaN
// p value (a test that could not be run) is not counted in m and stays NaN.
// Ties keep their input order, which does not change any adjusted value.
func Holm(p []float64) []float64 {
	adj := make([]float64, len(p))
	idx := make([]int, 0, len(p))
	for i, v := range p {
		adj[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-j)*p[i]))
		adj[i] = run
	}
	return adj
}

// TaskTrials is the number of trials N of one task and how many of them
// succeeded, C.
type TaskTrials struct {
	N, C int
}

// PassK is pass^k over a set of tasks.
type PassK struct {
	K     int     // trials that must all succeed
	Value float64 // mean over Tasks of C(c, k) / C(n, k); NaN when Tasks is 0
	Tasks int     // tasks with n >= k trials (the others are left out)
	Short int     // tasks with fewer than k trials
}

// PassHatK returns tau2-bench's pass^k (Yao et al. 2024, "tau-bench: A
// Benchmark for Tool-Agent-User Interaction in Real-World Domains", section
// 4): the chance that k independent trials of a task all succeed, estimated
// without bias from c successes in n >= k trials as C(c, k) / C(n, k) (the
// hypergeometric chance that k trials drawn without replacement from the n
// are all successes), averaged over the tasks with n >= k. pass^1 is the
// mean success rate. It is an error for k to be below 1 or a task to have
// c outside [0, n].
func PassHatK(tasks []TaskTrials, k int) (PassK, error) {
	if k < 1 {
		return PassK{}, fmt.Errorf("pass^k: k = %d, want at least 1", k)
	}
	r := PassK{K: k, Value: math.NaN()}
	var s float64
	for i, t := range tasks {
		if t.C < 0 || t.C > t.N {
			return PassK{}, fmt.Errorf("pass^k: task %d has %d successes in %d trials", i, t.C, t.N)
		}
		if t.N < k {
			r.Short++
			continue
		}
		r.Tasks++
		s += combRatio(t.C, t.N, k)
	}
	if r.Tasks > 0 {
		r.Value = s / float64(r.Tasks)
	}
	return r, nil
}

// combRatio returns C(c, k) / C(n, k) for 0 <= c <= n and 1 <= k <= n, as
// the product prod_{i<k} (c - i) / (n - i), which is exact for small k and
// never overflows.
func combRatio(c, n, k int) float64 {
	if c < k {
		return 0
	}
	v := 1.0
	for i := range k {
		v *= float64(c-i) / float64(n-i)
	}
	return v
}
