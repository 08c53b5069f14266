package analysis

import (
	"encoding/json"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// How wrong an LLM reviewer is, measured against people, and the
// simulator's error share once that is corrected; estimates from a
// probe-guided (unequal-probability) review sample weighted back to the
// population. The methods and their sources are in docs/statistics.md.

// PosNegAgreement returns the positive and negative specific agreement of
// two raters' 2x2 table t[a][b] (a, b: 1 = yes) (Cicchetti & Feinstein
// 1990, "High agreement but low kappa: II. Resolving the paradoxes",
// Journal of Clinical Epidemiology 43(6), 551-558):
//
//	p_pos = 2a / (2a + b + c),  p_neg = 2d / (2d + b + c)
//
// with a = t[1][1] (both yes), d = t[0][0] (both no) and b + c the
// discordant cells. Either is NaN when its denominator is 0. Beside kappa
// they say where agreement is: at an error share near 1% kappa can be low
// with p_neg near 1 and p_pos near 0.
func PosNegAgreement(t [2][2]int) (pos, neg float64) {
	a, d, bc := float64(t[1][1]), float64(t[0][0]), float64(t[0][1]+t[1][0])
	pos, neg = math.NaN(), math.NaN()
	if 2*a+bc > 0 {
		pos = 2 * a / (2*a + bc)
	}
	if 2*d+bc > 0 {
		neg = 2 * d / (2*d + bc)
	}
	return pos, neg
}

// KrippendorffAlphaNominal returns Krippendorff's alpha for nominal data
// (Krippendorff 2011, "Computing Krippendorff's alpha-reliability",
// Annenberg School for Communication, University of Pennsylvania). units[u]
// holds the values the coders gave unit u (missing values left out); a unit
// with fewer than two values is not pairable and is ignored. With the
// coincidences o_ck = sum_u (number of ordered pairs of values c, k in u)
// / (m_u - 1), n_c = sum_k o_ck and n = sum_c n_c:
//
//	alpha = 1 - (n - 1) sum_{c != k} o_ck / sum_{c != k} n_c n_k
//
// It is NaN when fewer than two values are pairable or every pairable
// value is the same (no variation: alpha is undefined).
func KrippendorffAlphaNominal(units [][]string) float64 {
	o := map[[2]string]float64{}
	nc := map[string]float64{}
	var n float64
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		for i := range u {
			for j := range u {
				if i != j {
					o[[2]string{u[i], u[j]}] += 1 / float64(m-1)
				}
			}
			nc[u[i]]++
			n++
		}
	}
	var disagree, expect float64
	for k, v := range o {
		if k[0] != k[1] {
			disagree += v
		}
	}
	cats := sortedKeys(nc)
	for _, c := range cats {
		for _, k := range cats {
			if c != k {
				expect += nc[c] * nc[k]
			}
		}
	}
	if n < 2 || expect == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*disagree/expect
}

// AlphaOfTable is [KrippendorffAlphaNominal] of two coders with no missing
// value, from their 2x2 table t[a][b].
func AlphaOfTable(t [2][2]int) float64 {
	var units [][]string
	yn := [2]string{"no", "yes"}
	for a := range 2 {
		for b := range 2 {
			for range t[a][b] {
				units = append(units, []string{yn[a], yn[b]})
			}
		}
	}
	return KrippendorffAlphaNominal(units)
}

// DesignUnit is one reviewed episode of a review sample: its stratum, its
// inclusion probability, whether it belongs to the subpopulation whose
// share is estimated (In), and the yes/no outcome (Y).
type DesignUnit struct {
	Stratum string
	Pi      float64 // inclusion probability in (0, 1]; 0 means 1
	In      bool
	Y       bool
}

// DesignProportion is a share estimated from a review sample. K and N
// count the sampled units (N in the subpopulation, K of them yes); P, Lo
// and Hi are the estimate and its interval, weighted back to the
// population when Weighted. NEff is the effective sample size the
// interval used (N when not weighted).
type DesignProportion struct {
	Proportion
	Weighted bool
	NEff     float64
}

// MarshalJSON writes NaN and infinities as null.
func (d DesignProportion) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"k": d.K, "n": d.N, "p": jnum(d.P), "lo": jnum(d.Lo), "hi": jnum(d.Hi),
		"weighted": d.Weighted, "n_eff": jnum(d.NEff)})
}

func jnum(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func nanProportion() DesignProportion {
	nan := math.NaN()
	return DesignProportion{Proportion: Proportion{P: nan, Lo: nan, Hi: nan}, NEff: 0}
}

// HajekShare estimates the share of units with Y among the population's
// units In, from a stratified sample with inclusion probabilities Pi.
// With w_i = 1/Pi, the Hájek (ratio) estimator
//
//	p = sum_{In} w_i Y_i / sum_{In} w_i
//
// equals the Horvitz-Thompson estimator of the total divided by the
// estimated size (Särndal, Swensson & Wretman 1992, Model Assisted Survey
// Sampling, section 5.7). Its variance is the Taylor linearisation for a
// stratified sample (Lohr 2010, Sampling: Design and Analysis, 2nd ed.,
// sections 9.1 and 14.2), with z_i = w_i In_i (Y_i - p) / sum_{In} w:
//
//	v = sum_h n_h/(n_h - 1) sum_{i in h} (z_i - mean_h z)^2
//
// without finite-population correction: the target is the simulator's
// error rate, of which the corpus is itself a sample. The interval is
// Wilson's at the effective sample size n_eff = p(1-p)/v (Korn & Graubard
// 1998, "Confidence intervals for proportions with small expected number
// of positive counts estimated from survey data", Survey Methodology
// 24(2), 193-201, who use Clopper-Pearson at n_eff; Wilson is SPEC 7's
// default), and n_eff = N when v = 0 (p is 0 or 1). When every Pi of the
// units In is equal the result is plain Wilson on K/N. No unit In, or a Pi
// outside (0, 1], is an error.
func HajekShare(units []DesignUnit, level float64) (DesignProportion, error) {
	var n, k int
	var sw, swy float64
	equal := true
	first := -1.0
	for _, u := range units {
		pi := u.Pi
		if pi == 0 {
			pi = 1
		}
		if !(pi > 0 && pi <= 1) {
			return DesignProportion{}, fmt.Errorf("weighted share: inclusion probability %v is not in (0, 1]", u.Pi)
		}
		if !u.In {
			continue
		}
		if first < 0 {
			first = pi
		} else if pi != first {
			equal = false
		}
		n++
		sw += 1 / pi
		if u.Y {
			k++
			swy += 1 / pi
		}
	}
	if n == 0 {
		return DesignProportion{}, fmt.Errorf("weighted share: no unit in the subpopulation")
	}
	if equal {
		p, err := Wilson(k, n, level)
		if err != nil {
			return DesignProportion{}, err
		}
		return DesignProportion{Proportion: p, NEff: float64(n)}, nil
	}
	p := swy / sw
	byStratum := map[string][]float64{}
	for _, u := range units {
		pi := u.Pi
		if pi == 0 {
			pi = 1
		}
		z := 0.0
		if u.In {
			y := 0.0
			if u.Y {
				y = 1
			}
			z = (y - p) / pi / sw
		}
		byStratum[u.Stratum] = append(byStratum[u.Stratum], z)
	}
	var v float64
	for _, h := range sortedKeys(byStratum) {
		zs := byStratum[h]
		nh := float64(len(zs))
		if len(zs) < 2 {
			continue
		}
		var mean float64
		for _, z := range zs {
			mean += z
		}
		mean /= nh
		var ss float64
		for _, z := range zs {
			ss += (z - mean) * (z - mean)
		}
		v += nh / (nh - 1) * ss
	}
	neff := float64(n)
	if v > 0 && p > 0 && p < 1 {
		neff = p * (1 - p) / v
	}
	lo, hi := wilsonReal(p, neff, level)
	return DesignProportion{Proportion: Proportion{K: k, N: n, P: p, Lo: lo, Hi: hi}, Weighted: true, NEff: neff}, nil
}

// wilsonReal is the Wilson score interval of [Wilson] for a share p at a
// real-valued sample size n.
func wilsonReal(p, n float64, level float64) (lo, hi float64) {
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	z2 := z * z
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / (1 + z2/n)
	lo, hi = math.Max(0, centre-half), math.Min(1, centre+half)
	if p == 0 {
		lo = 0
	}
	if p == 1 {
		hi = 1
	}
	return lo, hi
}

// DiagnosticAccuracy is a reviewer (the test, e.g. an LLM) measured against
// a reference (the final human decision) on one yes/no question, over the
// episodes both decided.
type DiagnosticAccuracy struct {
	Question string
	// Table counts the episodes: Table[reference yes][test yes].
	Table [2][2]int
	// Sensitivity is P(test yes | reference yes), Specificity P(test no |
	// reference no), each design-weighted when the sample is, with its
	// interval; NaN with N = 0 when the reference has no yes (no).
	Sensitivity, Specificity DesignProportion
	PosAgreement             float64 // Cicchetti & Feinstein's p_pos, NaN when undefined
	NegAgreement             float64
	Alpha                    float64 // Krippendorff's alpha (nominal), NaN when undefined
	Kappa                    Kappa
}

// MarshalJSON writes NaN as null.
func (d DiagnosticAccuracy) MarshalJSON() ([]byte, error) {
	k := d.Kappa
	return json.Marshal(map[string]any{"question": d.Question, "table": d.Table, "sensitivity": d.Sensitivity,
		"specificity": d.Specificity, "positive_agreement": jnum(d.PosAgreement), "negative_agreement": jnum(d.NegAgreement),
		"alpha": jnum(d.Alpha), "kappa": map[string]any{"kappa": jnum(k.Kappa), "lo": jnum(k.Lo), "hi": jnum(k.Hi)}})
}

// PairedCall is one episode decided by the reference and by the test.
type PairedCall struct {
	Stratum   string
	Pi        float64 // inclusion probability of the episode in the review sample (0 means 1)
	Reference bool
	Test      bool
}

// Diagnose measures the test against the reference on the calls:
// sensitivity and specificity as [HajekShare]s (Wilson intervals; on
// effective sample sizes when the inclusion probabilities differ), and,
// unweighted, p_pos and p_neg ([PosNegAgreement]), Krippendorff's alpha
// ([AlphaOfTable]) and Cohen's kappa ([CohenKappa]).
func Diagnose(question string, calls []PairedCall, level float64) DiagnosticAccuracy {
	d := DiagnosticAccuracy{Question: question}
	sens := make([]DesignUnit, len(calls))
	spec := make([]DesignUnit, len(calls))
	c := ConfusionOf([]string{"no", "yes"})
	yn := [2]string{"no", "yes"}
	for i, x := range calls {
		d.Table[b2i(x.Reference)][b2i(x.Test)]++
		c.Add(yn[b2i(x.Reference)], yn[b2i(x.Test)], 1)
		sens[i] = DesignUnit{Stratum: x.Stratum, Pi: x.Pi, In: x.Reference, Y: x.Test}
		spec[i] = DesignUnit{Stratum: x.Stratum, Pi: x.Pi, In: !x.Reference, Y: !x.Test}
	}
	var err error
	if d.Sensitivity, err = HajekShare(sens, level); err != nil {
		d.Sensitivity = nanProportion()
	}
	if d.Specificity, err = HajekShare(spec, level); err != nil {
		d.Specificity = nanProportion()
	}
	d.PosAgreement, d.NegAgreement = PosNegAgreement(d.Table)
	d.Alpha = AlphaOfTable(d.Table)
	d.Kappa = CohenKappa(c)
	return d
}

// RoganGladen is the Rogan-Gladen estimator of the true share from an
// apparent share q measured by a test of sensitivity se and specificity sp
// (Rogan & Gladen 1978, "Estimating prevalence from the results of a
// screening test", American Journal of Epidemiology 107(1), 71-76):
//
//	p = (q + sp - 1) / (se + sp - 1)
//
// clipped to [0, 1]. It is NaN when se + sp <= 1 (the test is no better
// than chance: nothing can be corrected).
func RoganGladen(q, se, sp float64) float64 {
	j := se + sp - 1
	if !(j > 0) {
		return math.NaN()
	}
	return math.Min(1, math.Max(0, (q+sp-1)/j))
}

// CorrectedShare is the simulator's error share over every episode the LLM
// reviewer reviewed, corrected for the reviewer's sensitivity and
// specificity measured against people.
type CorrectedShare struct {
	Raw      Proportion       // the LLM reviewer's share over its decided episodes (Wilson)
	Se, Sp   DesignProportion // from the episodes people also decided
	Estimate float64          // RoganGladen(Raw.P, Se.P, Sp.P); NaN when undefined
	Lo, Hi   float64          // Monte Carlo interval; NaN when undefined
	B        int              // draws
	Seed     uint64
	Dropped  int    // draws with Se* + Sp* <= 1, left out of the quantiles
	Why      string // "" or why there is no estimate
}

// MarshalJSON writes NaN as null.
func (c CorrectedShare) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"raw": c.Raw, "sensitivity": c.Se, "specificity": c.Sp, "estimate": jnum(c.Estimate),
		"lo": jnum(c.Lo), "hi": jnum(c.Hi), "draws": c.B, "seed": c.Seed, "dropped": c.Dropped, "why": c.Why})
}

// CorrectedErrorShare is the Rogan-Gladen corrected share ([RoganGladen])
// of k errors among n LLM-reviewed episodes, given the reviewer's se and
// sp, with an interval that carries the uncertainty of both samples: the
// corpus share and the audit's sensitivity and specificity are each drawn
// from the Jeffreys posterior Beta(x + 1/2, m - x + 1/2) of its own sample
// (m the effective sample size NEff, x = P m), independently, opts.B times
// from the seeded generator [NewBootstrapRand](opts.Seed); the interval is
// the percentile interval of RoganGladen over the draws (draws with
// Se* + Sp* <= 1 are dropped and counted). This is Monte Carlo propagation
// of the three binomial uncertainties, the Bayesian analogue of the
// parametric bootstrap over both samples (Flor et al. 2020, "Comparison of
// Bayesian and frequentist methods for prevalence estimation under
// misclassification", BMC Public Health 20, 1135, compare it with the
// frequentist intervals of Lang & Reiczigel 2014). Its coverage is tested
// on planted studies in reviewer_accuracy_test.go.
func CorrectedErrorShare(k, n int, se, sp DesignProportion, opts BootstrapOptions) (CorrectedShare, error) {
	opts = opts.withDefaults()
	raw, err := Wilson(k, n, opts.Level)
	if err != nil {
		return CorrectedShare{}, fmt.Errorf("corrected share: %w", err)
	}
	nan := math.NaN()
	c := CorrectedShare{Raw: raw, Se: se, Sp: sp, Estimate: nan, Lo: nan, Hi: nan, B: opts.B, Seed: opts.Seed}
	switch {
	case se.N == 0:
		c.Why = "no episode with a simulator error by the people's decision: no sensitivity"
		return c, nil
	case sp.N == 0:
		c.Why = "no episode without a simulator error by the people's decision: no specificity"
		return c, nil
	case !(se.P+sp.P > 1):
		c.Why = "sensitivity + specificity <= 1: the reviewer is no better than chance"
		return c, nil
	}
	c.Estimate = RoganGladen(raw.P, se.P, sp.P)
	r := NewBootstrapRand(opts.Seed)
	post := func(p, m float64) distuv.Beta {
		return distuv.Beta{Alpha: p*m + 0.5, Beta: (1-p)*m + 0.5, Src: r}
	}
	dq, dse, dsp := post(raw.P, float64(n)), post(se.P, se.NEff), post(sp.P, sp.NEff)
	reps := make([]float64, 0, opts.B)
	for range opts.B {
		v := RoganGladen(dq.Rand(), dse.Rand(), dsp.Rand())
		if math.IsNaN(v) {
			c.Dropped++
			continue
		}
		reps = append(reps, v)
	}
	c.Lo, c.Hi = PercentileInterval(reps, opts.Level)
	return c, nil
}

// PlanWidth returns the smallest n such that the Wilson interval ([Wilson])
// of a share p at the level has full width at most w, times the design
// effect deff (Kish 1965, Survey Sampling, section 8.2: an unequal-weight
// sample of n is worth n/deff simple draws), rounded up. The width at a
// real n is that of the Wilson formula with k = p n.
func PlanWidth(p, w, level, deff float64) (int, error) {
	if !(p >= 0 && p <= 1) || !(w > 0 && w < 1) || !(level > 0 && level < 1) {
		return 0, fmt.Errorf("plan: need 0 <= p <= 1, 0 < width < 1 and a level in (0, 1) (got p %v, width %v, level %v)", p, w, level)
	}
	if deff < 1 {
		deff = 1
	}
	width := func(n float64) float64 { lo, hi := wilsonRaw(p, n, level); return hi - lo }
	lo, hi := 1, 1
	for width(float64(hi)) > w {
		lo, hi = hi, hi*2
		if hi > 1<<30 {
			return 0, fmt.Errorf("plan: width %v needs more than %d episodes", w, 1<<30)
		}
	}
	for lo < hi {
		m := (lo + hi) / 2
		if width(float64(m)) <= w {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return planEpisodes(float64(hi)*deff, "width", w)
}

// maxPlan bounds a planned number of episodes, as PlanWidth's search does:
// beyond it no review is possible, and int would overflow.
const maxPlan = 1 << 30

// planEpisodes is n episodes rounded up, or an error when n passes
// maxPlan (or is not a number).
func planEpisodes(n float64, what string, v float64) (int, error) {
	if !(n <= maxPlan) {
		return 0, fmt.Errorf("plan: %s %.3g needs more than %d episodes", what, v, maxPlan)
	}
	return int(math.Ceil(n)), nil
}

// wilsonRaw is the Wilson interval without clipping at the bounds.
func wilsonRaw(p, n, level float64) (lo, hi float64) {
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	z2 := z * z
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / (1 + z2/n)
	return centre - half, centre + half
}

// PlanDetect returns the episodes per simulator to detect error shares p1
// against p2 with a two-sided test at significance 1 - level and the given
// power, times the design effect, rounded up (Fleiss, Levin & Paik 2003,
// Statistical Methods for Rates and Proportions, 3rd ed., eq. 4.14, without
// continuity correction):
//
//	n = (z_{a/2} sqrt(2 pbar qbar) + z_b sqrt(p1 q1 + p2 q2))^2 / (p2 - p1)^2
//
// with pbar = (p1 + p2)/2, q = 1 - p.
func PlanDetect(p1, p2, level, power, deff float64) (int, error) {
	if !(p1 >= 0 && p1 <= 1 && p2 >= 0 && p2 <= 1) || p1 == p2 || !(level > 0 && level < 1) || !(power > 0 && power < 1) {
		return 0, fmt.Errorf("plan: need two different shares in [0, 1], a level and a power in (0, 1) (got %v, %v, level %v, power %v)", p1, p2, level, power)
	}
	if deff < 1 {
		deff = 1
	}
	za := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	zb := distuv.UnitNormal.Quantile(power)
	pb := (p1 + p2) / 2
	num := za*math.Sqrt(2*pb*(1-pb)) + zb*math.Sqrt(p1*(1-p1)+p2*(1-p2))
	n := num * num / ((p2 - p1) * (p2 - p1))
	return planEpisodes(n*deff-1e-9, "a difference of", math.Abs(p2-p1))
}

// KishDesignEffect is Kish's design effect of unequal weights, n sum w^2 /
// (sum w)^2 (Kish 1965, section 11.7); 1 for no or equal weights.
func KishDesignEffect(w []float64) float64 {
	if len(w) == 0 {
		return 1
	}
	var s, s2 float64
	for _, x := range w {
		s += x
		s2 += x * x
	}
	return float64(len(w)) * s2 / (s * s)
}

// ProbeDesignEffect is Kish's design effect ([KishDesignEffect]) of a
// probe-guided sample: a share f of the population where probes fired,
// drawn with weight W (allocation proportional to size times W, weights
// proportional to 1/W):
//
//	deff = (f/W + 1 - f) (f W + 1 - f)
//
// It is 1 at W = 1 or f in {0, 1}. When probes fire more often on
// episodes with errors, oversampling them makes the error share more
// precise than this says: it is the conservative figure.
func ProbeDesignEffect(f, w float64) float64 {
	if w <= 0 {
		return 1
	}
	return (f/w + 1 - f) * (f*w + 1 - f)
}
