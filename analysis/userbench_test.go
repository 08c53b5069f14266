package analysis

import (
	"fmt"
	"math"
	"sort"
	"testing"
)

func TestSignFlipExact(t *testing.T) {
	for _, c := range []struct {
		name string
		d    []float64
		want float64
	}{
		// +/-1 +/-2 +/-3: sums 6 4 2 0 0 -2 -4 -6; |sum| >= 6 twice of 8.
		{"three differences", []float64{1, 2, 3}, 2.0 / 8},
		// +/-1 ... +/-4: only all-plus and all-minus reach |10|.
		{"four differences", []float64{1, 2, 3, 4}, 2.0 / 16},
		// 0.5 -0.2 0.3 (observed 0.6): sums 1.0 0.6 0.4 0 0 -0.4 -0.6 -1.0;
		// four reach |0.6| (0.6 is reached up to rounding: the tie counts).
		{"a tie up to rounding", []float64{0.5, -0.2, 0.3}, 4.0 / 8},
		// Zeros are dropped: the same as {1, 2, 3}.
		{"zeros dropped", []float64{0, 1, 0, 2, 3}, 2.0 / 8},
		{"no non-zero difference", []float64{0, 0}, 1},
		// Fisher (1935), The Design of Experiments, section 21: Darwin's
		// 15 paired differences of Zea mays heights (eighths of an inch);
		// 863 of the 2^15 = 32,768 sign patterns give a sum at least the
		// observed 314, so the two-sided p is 1726 / 32768 = 0.05267.
		{"Darwin's Zea mays", []float64{49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48}, 1726.0 / 32768},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkFloat(t, "p", SignFlip(c.d, 1), c.want, 1e-12)
		})
	}
}

// enumerateSignFlip is a second implementation of the exact test, by
// recursion over the differences, for the Monte Carlo path's check.
func enumerateSignFlip(d []float64) float64 {
	obs := 0.0
	for _, v := range d {
		obs += v
	}
	var hits, all float64
	var rec func(i int, s float64)
	rec = func(i int, s float64) {
		if i == len(d) {
			all++
			if math.Abs(s) >= math.Abs(obs)-1e-9 {
				hits++
			}
			return
		}
		rec(i+1, s+d[i])
		rec(i+1, s-d[i])
	}
	rec(0, 0)
	return hits / all
}

func TestSignFlipMonteCarlo(t *testing.T) {
	// 20 differences: past SignFlipExactMax, so SignFlipB patterns are
	// drawn. The exact p by enumeration of 2^20 patterns; the Monte Carlo
	// p must be within 4 binomial standard errors of it, and the same seed
	// must give the same p.
	d := []float64{0.12, -0.05, 0.08, 0.02, -0.11, 0.07, 0.04, 0.09, -0.03, 0.06,
		0.01, 0.10, -0.07, 0.05, 0.03, -0.02, 0.08, 0.04, -0.06, 0.09}
	exact := enumerateSignFlip(d)
	got := SignFlip(d, 7)
	se := math.Sqrt(exact * (1 - exact) / SignFlipB)
	t.Logf("exact %.5f, Monte Carlo %.5f (se %.5f)", exact, got, se)
	if math.Abs(got-exact) > 4*se+1.0/SignFlipB {
		t.Errorf("Monte Carlo p %.5f, exact %.5f", got, exact)
	}
	if again := SignFlip(d, 7); again != got {
		t.Errorf("same seed gave %v then %v", got, again)
	}
	// A difference too strong for any drawn pattern: p = 1 / (B + 1).
	strong := make([]float64, 40)
	for i := range strong {
		strong[i] = 1
	}
	checkFloat(t, "p of 40 positive differences", SignFlip(strong, 3), 1.0/(SignFlipB+1), 1e-15)
}

func TestMeanBootstrapReplaysTheReplicates(t *testing.T) {
	// The replicate set of seed 5, replayed by hand: B draws of n indices
	// from NewBootstrapRand(5) (ClusterReplicates' documented algorithm),
	// the mean of each resample, and the type 7 quantiles at 0.025 and
	// 0.975 of the sorted means.
	xs := []float64{0.40, 0.55, 0.61, 0.47, 0.52, 0.70, 0.33, 0.58}
	const b = 200
	r := NewBootstrapRand(5)
	means := make([]float64, b)
	for i := range means {
		var s float64
		for range xs {
			s += xs[r.IntN(len(xs))]
		}
		means[i] = s / float64(len(xs))
	}
	sort.Float64s(means)
	q := func(p float64) float64 {
		h := float64(b-1) * p
		lo := int(h)
		return means[lo] + (h-float64(lo))*(means[lo+1]-means[lo])
	}
	got := MeanBootstrap(xs, BootstrapOptions{B: b, Seed: 5})
	checkFloat(t, "estimate", got.Estimate, 4.16/8, 1e-12)
	checkFloat(t, "lo", got.Lo, q(0.025), 1e-12)
	checkFloat(t, "hi", got.Hi, q(0.975), 1e-12)
	t.Run("macro accuracy resamples developers", func(t *testing.T) {
		var o []Outcome
		o = append(o, devOutcomes("a", 1, 4)...)
		o = append(o, devOutcomes("b", 3, 4)...)
		o = append(o, devOutcomes("c", 2, 2)...)
		m := MacroBootstrap(MacroAccuracy(o), BootstrapOptions{B: b, Seed: 5})
		want := MeanBootstrap([]float64{0.25, 0.75, 1}, BootstrapOptions{B: b, Seed: 5})
		if m != want {
			t.Errorf("got %+v, want %+v", m, want)
		}
	})
}

// scored builds a simulator whose developer i has accuracy acc[i].
func scored(name string, acc ...float64) Scored {
	s := Scored{Simulator: name}
	for i, a := range acc {
		s.Developers = append(s.Developers, DeveloperScore{Developer: fmt.Sprintf("d%02d", i), Accuracy: a, N: 10, Hits: int(10 * a)})
	}
	return s
}

func TestCompareSimulators(t *testing.T) {
	// 12 developers. "high" beats "low" by 0.2 on every developer, "twin"
	// equals "high" but for +/-0.01 alternating (a null pair), "few" has 4
	// developers (below MinDevelopers).
	var hi, twin, lo []float64
	for i := range 12 {
		h := 0.5 + 0.01*float64(i)
		hi = append(hi, h)
		twin = append(twin, h+0.01*float64(1-2*(i%2)))
		lo = append(lo, h-0.2)
	}
	c := CompareSimulators([]Scored{scored("low", lo...), scored("high", hi...), scored("twin", twin...), scored("few", 0.9, 0.9, 0.9, 0.9)}, 0.05, BootstrapOptions{B: 500})
	if fmt.Sprint(c.Ranked) != "[high twin low]" || fmt.Sprint(c.Small) != "[few]" {
		t.Fatalf("ranked %v, small %v", c.Ranked, c.Small)
	}
	if len(c.Pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(c.Pairs))
	}
	byPair := map[string]SimulatorPair{}
	for _, p := range c.Pairs {
		byPair[p.A+"-"+p.B] = p
	}
	// high - low: every difference +0.2, so only the all-plus and
	// all-minus patterns of 2^12 reach |sum|: p = 2/4096; Holm over 3
	// tests, the smallest of three p values: 3 * 2/4096 (twin - low has
	// the same differences but for +/-0.01, also 2/4096: adjusted by 2,
	// then the running maximum makes both 6/4096).
	hl := byPair["high-low"]
	checkFloat(t, "high-low diff", hl.Diff.Estimate, 0.2, 1e-12)
	checkFloat(t, "high-low p", hl.P, 2.0/4096, 1e-15)
	checkFloat(t, "high-low holm", hl.Holm, 6.0/4096, 1e-15)
	checkFloat(t, "twin-low holm", byPair["twin-low"].Holm, 6.0/4096, 1e-15)
	// high - twin: six +0.01 and six -0.01 differences, sum 0, so every
	// pattern reaches it: p = 1.
	checkFloat(t, "high-twin p", byPair["high-twin"].P, 1, 0)
	if fmt.Sprint(c.TopCluster) != "[high twin]" {
		t.Errorf("top cluster %v, want [high twin]", c.TopCluster)
	}
}

func TestTerseRecovery(t *testing.T) {
	// Every developer's terse accuracy is halfway between without and
	// with profile, and the profile gains 0.1 or 0.2: every replicate's
	// share is exactly 0.5 and the gain's interval lies in [0.1, 0.2].
	var n, te, p []DeveloperScore
	for i := range 10 {
		d := fmt.Sprintf("d%d", i)
		g := 0.1 + 0.1*float64(i%2)
		base := 0.4 + 0.02*float64(i)
		n = append(n, DeveloperScore{Developer: d, Accuracy: base})
		p = append(p, DeveloperScore{Developer: d, Accuracy: base + g})
		te = append(te, DeveloperScore{Developer: d, Accuracy: base + g/2})
	}
	n = append(n, DeveloperScore{Developer: "only-without", Accuracy: 0.9})
	r := TerseRecovery(n, te, p, BootstrapOptions{B: 300})
	if r.Developers != 10 || !r.Estimable {
		t.Fatalf("%+v: want 10 developers, estimable", r)
	}
	checkFloat(t, "gain", r.Gain.Estimate, 0.15, 1e-12)
	checkFloat(t, "share", r.Share.Estimate, 0.5, 1e-12)
	checkFloat(t, "share lo", r.Share.Lo, 0.5, 1e-9)
	checkFloat(t, "share hi", r.Share.Hi, 0.5, 1e-9)
	if r.Gain.Lo < 0.1-1e-12 || r.Gain.Hi > 0.2+1e-12 || r.Gain.Lo >= r.Gain.Hi {
		t.Errorf("gain interval [%v, %v], want inside [0.1, 0.2]", r.Gain.Lo, r.Gain.Hi)
	}
	t.Run("a gain that may be zero is not estimable", func(t *testing.T) {
		for i := range p {
			p[i].Accuracy = n[i].Accuracy + 0.1*float64(1-2*(i%2)) // +0.1, -0.1, ...: mean 0
		}
		r := TerseRecovery(n, te, p, BootstrapOptions{B: 300})
		if r.Estimable || !(r.Gain.Lo < 0 && r.Gain.Hi > 0) {
			t.Errorf("%+v: the gain's interval should cover zero and the share be not estimable", r)
		}
	})
}
