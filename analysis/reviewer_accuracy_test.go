package analysis

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestKrippendorffAlphaNominal(t *testing.T) {
	// Krippendorff (2011), "Computing Krippendorff's alpha-reliability",
	// section C: four observers, 12 units, missing data; nominal alpha =
	// 0.743. Unit values (A, B, C, D; "." missing):
	//  1: 1 1 . 1   2: 2 2 3 2   3: 3 3 3 3   4: 3 3 3 3   5: 2 2 2 2
	//  6: 1 2 3 4   7: 4 4 4 4   8: 1 1 2 1   9: 2 2 2 2  10: . 5 5 5
	// 11: . . 1 1  12: . 3 . .  (unit 12 is not pairable)
	units := [][]string{
		{"1", "1", "1"}, {"2", "2", "3", "2"}, {"3", "3", "3", "3"}, {"3", "3", "3", "3"}, {"2", "2", "2", "2"},
		{"1", "2", "3", "4"}, {"4", "4", "4", "4"}, {"1", "1", "2", "1"}, {"2", "2", "2", "2"}, {"5", "5", "5"},
		{"1", "1"}, {"3"},
	}
	if got := KrippendorffAlphaNominal(units); math.Abs(got-0.743) > 0.0005 {
		t.Errorf("alpha = %.4f, want 0.743 (Krippendorff 2011, section C)", got)
	}
	// Section A of the same paper: binary data, two observers, ten units,
	// A = 0 1 0 0 0 0 0 0 1 0, B = 1 1 1 0 0 1 0 0 0 0. By hand: the
	// coincidences o_00 = 10, o_11 = 2, o_01 = o_10 = 4; n_0 = 14, n_1 =
	// 6, n = 20; alpha = 1 - 19 * 8 / (2 * 14 * 6) = 1 - 152/168 = 0.0952.
	a := []string{"0", "1", "0", "0", "0", "0", "0", "0", "1", "0"}
	b := []string{"1", "1", "1", "0", "0", "1", "0", "0", "0", "0"}
	var pairs [][]string
	for i := range a {
		pairs = append(pairs, []string{a[i], b[i]})
	}
	if got := KrippendorffAlphaNominal(pairs); math.Abs(got-(1-152.0/168)) > 1e-12 {
		t.Errorf("binary alpha = %.6f, want %.6f", got, 1-152.0/168)
	}
	// The same as a 2x2 table [A][B]: both 0: 5, A 0 B 1: 3, A 1 B 0: 1, both 1: 1.
	if got := AlphaOfTable([2][2]int{{5, 3}, {1, 1}}); math.Abs(got-(1-152.0/168)) > 1e-12 {
		t.Errorf("AlphaOfTable = %.6f, want %.6f", got, 1-152.0/168)
	}
	t.Run("undefined without variation", func(t *testing.T) {
		if got := AlphaOfTable([2][2]int{{7, 0}, {0, 0}}); !math.IsNaN(got) {
			t.Errorf("alpha of one category = %v, want NaN", got)
		}
	})
}

func TestPosNegAgreement(t *testing.T) {
	// Cicchetti & Feinstein (1990): p_pos = 2a/(2a+b+c), p_neg =
	// 2d/(2d+b+c). Table with a = 2 (both yes), b = 3, c = 1, d = 94:
	// by hand p_pos = 4/8 = 0.5 and p_neg = 188/192 = 0.979167; kappa
	// (p_o = 0.96, p_e = 0.05*0.03 + 0.95*0.97 = 0.923) = 0.037/0.077 =
	// 0.480519: the paradox these two resolve.
	tab := [2][2]int{{94, 1}, {3, 2}} // [A yes][B yes]: A no B yes = 1 (c), A yes B no = 3 (b)
	pos, neg := PosNegAgreement(tab)
	if math.Abs(pos-0.5) > 1e-12 || math.Abs(neg-188.0/192) > 1e-12 {
		t.Errorf("p_pos, p_neg = %v, %v; want 0.5, %v", pos, neg, 188.0/192)
	}
	d := Diagnose("has error", callsOf(tab), 0.95)
	if math.Abs(d.Kappa.Kappa-0.037/0.077) > 1e-9 {
		t.Errorf("kappa = %v, want %v", d.Kappa.Kappa, 0.037/0.077)
	}
	// Sensitivity 2/5 and specificity 94/95 with Wilson intervals.
	if d.Sensitivity.K != 2 || d.Sensitivity.N != 5 || d.Specificity.K != 94 || d.Specificity.N != 95 || d.Sensitivity.Weighted {
		t.Errorf("Se %d/%d, Sp %d/%d (weighted %v); want 2/5, 94/95 unweighted", d.Sensitivity.K, d.Sensitivity.N,
			d.Specificity.K, d.Specificity.N, d.Sensitivity.Weighted)
	}
	w, _ := Wilson(2, 5, 0.95)
	if math.Abs(d.Sensitivity.Lo-w.Lo) > 1e-12 || math.Abs(d.Sensitivity.Hi-w.Hi) > 1e-12 {
		t.Errorf("Se interval [%v, %v], want Wilson [%v, %v]", d.Sensitivity.Lo, d.Sensitivity.Hi, w.Lo, w.Hi)
	}
	t.Run("undefined without yes", func(t *testing.T) {
		pos, neg := PosNegAgreement([2][2]int{{9, 0}, {0, 0}})
		if !math.IsNaN(pos) || neg != 1 {
			t.Errorf("p_pos, p_neg = %v, %v; want NaN, 1", pos, neg)
		}
	})
}

func callsOf(tab [2][2]int) []PairedCall {
	var out []PairedCall
	for r := range 2 {
		for s := range 2 {
			for range tab[r][s] {
				out = append(out, PairedCall{Reference: r == 1, Test: s == 1})
			}
		}
	}
	return out
}

func TestRoganGladen(t *testing.T) {
	// By hand: q = 0.2, Se = 0.9, Sp = 0.95: (0.2 + 0.95 - 1)/(0.85) = 0.15/0.85.
	if got := RoganGladen(0.2, 0.9, 0.95); math.Abs(got-0.15/0.85) > 1e-12 {
		t.Errorf("RG = %v, want %v", got, 0.15/0.85)
	}
	if got := RoganGladen(0.01, 0.9, 0.95); got != 0 {
		t.Errorf("RG below 0 = %v, want clipped to 0", got)
	}
	if got := RoganGladen(0.3, 0.5, 0.5); !math.IsNaN(got) {
		t.Errorf("RG at Se + Sp = 1 = %v, want NaN", got)
	}
}

func TestHajekShare(t *testing.T) {
	// Two strata: "fired" (pi = 0.5, 4 units: y = 1 1 0 0) and "quiet" (pi
	// = 0.1, 4 units: y = 1 0 0 0). Weights 2 and 10. By hand: p = (2*2
	// + 10*1)/(2*4 + 10*4) = 14/48 = 0.291667. z_i = w_i (y_i - p)/48:
	// fired y=1: 2*0.708333/48 = 0.0295139, y=0: -2*0.291667/48 =
	// -0.0121528; mean 0.00868056; SS = 4 * 0.0208333^2 = 0.00173611;
	// quiet y=1: 10*0.708333/48 = 0.147569, y=0: -0.0607639; mean
	// -0.00868056; SS = 0.156250^2 + 3*0.0520833^2 = 0.0325521; v = 4/3
	// (0.00173611 + 0.0325521) = 0.0457176; n_eff = p(1-p)/v = 0.206597 /
	// 0.0457176 = 4.51897.
	var us []DesignUnit
	for _, y := range []bool{true, true, false, false} {
		us = append(us, DesignUnit{Stratum: "fired", Pi: 0.5, In: true, Y: y})
	}
	for _, y := range []bool{true, false, false, false} {
		us = append(us, DesignUnit{Stratum: "quiet", Pi: 0.1, In: true, Y: y})
	}
	d, err := HajekShare(us, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Weighted || math.Abs(d.P-14.0/48) > 1e-12 || math.Abs(d.NEff-4.51897) > 1e-4 {
		t.Errorf("p = %v, n_eff = %v (weighted %v); want %v, 4.51897", d.P, d.NEff, d.Weighted, 14.0/48)
	}
	lo, hi := wilsonReal(14.0/48, 4.51897, 0.95)
	if math.Abs(d.Lo-lo) > 1e-4 || math.Abs(d.Hi-hi) > 1e-4 {
		t.Errorf("interval [%v, %v], want [%v, %v]", d.Lo, d.Hi, lo, hi)
	}
	t.Run("equal weights are plain Wilson", func(t *testing.T) {
		var us []DesignUnit
		for i := range 263 {
			us = append(us, DesignUnit{Pi: 0.3, In: true, Y: i < 81})
		}
		// Newcombe (1998), Table I: 81/263 -> 0.2553 to 0.3662.
		d, err := HajekShare(us, 0.95)
		if err != nil || d.Weighted || math.Abs(d.Lo-0.2553) > 5e-5 || math.Abs(d.Hi-0.3662) > 5e-5 {
			t.Errorf("equal weights: %+v, %v; want Wilson 0.2553 to 0.3662 unweighted", d, err)
		}
	})
	t.Run("empty subpopulation is an error", func(t *testing.T) {
		if _, err := HajekShare([]DesignUnit{{In: false}}, 0.95); err == nil {
			t.Error("no unit in the subpopulation: want an error")
		}
	})
}

func TestPlan(t *testing.T) {
	// Width: at p = 0.5 and 95%, the Wilson width 2 z sqrt(p q/n + z^2/4n^2)
	// / (1 + z^2/n) is <= 0.1 first at n = 381 (by hand: n = 380 gives
	// 0.100000 + ..., checked below against the formula at n-1 and n).
	n, err := PlanWidth(0.5, 0.1, 0.95, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := func(n float64) float64 { lo, hi := wilsonRaw(0.5, n, 0.95); return hi - lo }
	if !(w(float64(n)) <= 0.1 && w(float64(n-1)) > 0.1) {
		t.Errorf("PlanWidth = %d: widths %v at n, %v at n-1", n, w(float64(n)), w(float64(n-1)))
	}
	// The Wald approximation n = z^2/w'^2 with w' = half width 0.05 is
	// 384.1; Wilson needs slightly fewer (its width shrinks by 1 + z^2/n).
	if n < 370 || n > 385 {
		t.Errorf("PlanWidth(0.5, 0.1) = %d, want near 381", n)
	}
	// Detect: Fleiss, Levin & Paik (2003) eq. 4.14 without continuity
	// correction, p1 = 0.05, p2 = 0.10, alpha 0.05, power 0.8: by hand
	// z = 1.959964, z_b = 0.841621, pbar = 0.075: (1.959964 sqrt(2 *
	// 0.075 * 0.925) + 0.841621 sqrt(0.0475 + 0.09))^2 / 0.0025 =
	// (1.959964 * 0.372492 + 0.841621 * 0.370810)^2 / 0.0025 = (0.730071
	// + 0.312082)^2 / 0.0025 = 1.086083 / 0.0025 = 434.43 -> 435; with
	// a design effect of 2, 868.87 -> 869.
	m, err := PlanDetect(0.05, 0.10, 0.95, 0.8, 1)
	if err != nil || m != 435 {
		t.Errorf("PlanDetect = %d, %v; want 435", m, err)
	}
	if m2, _ := PlanDetect(0.05, 0.10, 0.95, 0.8, 2); m2 != 869 {
		t.Errorf("PlanDetect with design effect 2 = %d, want 869", m2)
	}
	if _, err := PlanWidth(0.5, 0, 0.95, 1); err == nil {
		t.Error("width 0: want an error")
	}
	// Probe-guided: a population of 100 with 20 fired, n = 20 at W = 4
	// draws 10 of each (weights 2 and 8): Kish n sum w^2 / (sum w)^2 = 20 *
	// (10*4 + 10*64) / 100^2 = 1.36; the formula at f = 0.2: (0.05 + 0.8)
	// (0.8 + 0.8) = 1.36.
	if got := ProbeDesignEffect(0.2, 4); math.Abs(got-1.36) > 1e-12 {
		t.Errorf("ProbeDesignEffect = %v, want 1.36", got)
	}
	w10 := []float64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8}
	if got := KishDesignEffect(w10); math.Abs(got-1.36) > 1e-12 {
		t.Errorf("Kish of the probe-guided weights = %v, want 1.36", got)
	}
	// Kish: weights 1,1,3,3: 4 * 20 / 64 = 1.25.
	if got := KishDesignEffect([]float64{1, 1, 3, 3}); math.Abs(got-1.25) > 1e-12 {
		t.Errorf("Kish deff = %v, want 1.25", got)
	}
}

// plantedStudy simulates a corpus of N episodes with a simulator error rate
// p, an LLM reviewer with sensitivity se and specificity sp over all of
// them, and people reviewing a simple random sample of m. It returns the
// LLM's error count and the audit's paired calls.
func plantedStudy(r *rand.Rand, N, m int, p, se, sp float64) (int, []PairedCall) {
	truth := make([]bool, N)
	llm := make([]bool, N)
	k := 0
	for i := range N {
		truth[i] = r.Float64() < p
		if truth[i] {
			llm[i] = r.Float64() < se
		} else {
			llm[i] = r.Float64() >= sp
		}
		if llm[i] {
			k++
		}
	}
	perm := r.Perm(N)
	calls := make([]PairedCall, m)
	for j := range m {
		i := perm[j]
		calls[j] = PairedCall{Reference: truth[i], Test: llm[i]}
	}
	return k, calls
}

// TestCorrectedShareCoverage: on planted studies (simulator error rate
// 0.10, LLM reviewer Se 0.80, Sp 0.93, a corpus of 2,000 LLM-reviewed
// episodes and 250 of them audited by people), the corrected share's 95%
// interval must cover the planted 0.10 in 92-98% of 400 seeds. It prints
// the coverage and the mean estimates.
func TestCorrectedShareCoverage(t *testing.T) {
	const seeds, N, m, p, se, sp = 400, 2000, 250, 0.10, 0.80, 0.93
	covered := 0
	var sumRaw, sumEst, sumWidth float64
	for s := range seeds {
		r := rand.New(rand.NewPCG(uint64(s)+1, 7))
		k, calls := plantedStudy(r, N, m, p, se, sp)
		d := Diagnose("has error", calls, 0.95)
		c, err := CorrectedErrorShare(k, N, d.Sensitivity, d.Specificity, BootstrapOptions{B: 2000, Seed: uint64(s) + 1})
		if err != nil || math.IsNaN(c.Estimate) {
			t.Fatalf("seed %d: %+v, %v", s, c, err)
		}
		if c.Lo <= p && p <= c.Hi {
			covered++
		}
		sumRaw += c.Raw.P
		sumEst += c.Estimate
		sumWidth += c.Hi - c.Lo
	}
	cov := float64(covered) / seeds
	t.Logf("planted p %.2f, Se %.2f, Sp %.2f; %d seeds: coverage %.3f, mean raw LLM share %.4f, mean corrected %.4f, mean width %.4f",
		p, se, sp, seeds, cov, sumRaw/seeds, sumEst/seeds, sumWidth/seeds)
	if cov < 0.92 || cov > 0.98 {
		t.Errorf("coverage %.3f of the planted error rate, want 0.92-0.98", cov)
	}
}

// TestReviewStatisticsLLMJSON: the statistics with an LLM reviewer encode
// as JSON (undefined values are null, not an encoding error).
func TestReviewStatisticsLLMJSON(t *testing.T) {
	items := []ReviewItem{
		{Episode: "e1", Reviewer: "ann", Kind: ReviewerHuman, Outcome: ReviewNoError},
		{Episode: "e2", Reviewer: "ann", Kind: ReviewerHuman, Outcome: ReviewNoError},
		{Episode: "e1", Reviewer: "llm:x", Kind: ReviewerLLM, Outcome: ReviewNoError},
		{Episode: "e2", Reviewer: "llm:x", Kind: ReviewerLLM, Outcome: ReviewError, Errors: []ReviewFinding{{Code: "other", Severity: SeverityMinor}}},
	}
	st, err := ReviewStatistics(items, ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.LLM) != 1 || st.LLM[0].CorrectedError.Why == "" || !math.IsNaN(st.LLM[0].HasError.Sensitivity.P) {
		t.Fatalf("LLM %+v: want no sensitivity (people found no error) and no correction", st.LLM)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"positive_agreement":0`, `"alpha":null`, `"estimate":null`, `"Reviewer":"llm:x"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON lacks %s: %s", s, b)
		}
	}
}
