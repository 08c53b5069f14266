package review

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

func TestDrawOversampleProbes(t *testing.T) {
	// 100 episodes, 20 where probes fired; n = 20, W = 4: shares 20*4 = 80
	// against 80*1 = 80, so 10 and 10 by hand; inclusion 10/20 = 0.5 and
	// 10/80 = 0.125.
	var cands []queries.ReviewCandidate
	for i := range 100 {
		cands = append(cands, queries.ReviewCandidate{SimulationID: fmt.Sprintf("s%03d", i), ProbesFired: i < 20})
	}
	d, err := Draw(cands, SampleOptions{N: 20, Seed: 3, OversampleProbes: 4})
	if err != nil {
		t.Fatal(err)
	}
	fired, pis := 0, map[string]float64{}
	for _, x := range d.Inclusion {
		if x.ProbesFired {
			fired++
		}
		pis[x.Stratum] = x.Pi
	}
	if len(d.Inclusion) != 20 || fired != 10 || pis["probes"] != 0.5 || pis["quiet"] != 0.125 {
		t.Errorf("%d drawn, %d with probes, inclusion %v; want 20, 10, probes 0.5 quiet 0.125", len(d.Inclusion), fired, pis)
	}
	t.Run("a weight beyond the stratum takes it whole", func(t *testing.T) {
		// W = 100: 20*100 = 2000 against 80: the probe stratum's share is
		// 20 * 2000/2080 = 19.23 (below its 20), so 19 and 1; then the quiet
		// stratum is raised to two: 18 and 2.
		d, err := Draw(cands, SampleOptions{N: 20, Seed: 3, OversampleProbes: 100})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, x := range d.Inclusion {
			n[x.Stratum]++
		}
		if n["probes"] != 18 || n["quiet"] != 2 {
			t.Errorf("per stratum %v, want probes 18, quiet 2", n)
		}
		// n = 30: 30*2000/2080 = 28.8 >= 20: all 20 fired, 10 quiet.
		d, _ = Draw(cands, SampleOptions{N: 30, Seed: 3, OversampleProbes: 100})
		n = map[string]int{}
		for _, x := range d.Inclusion {
			n[x.Stratum]++
			if x.Stratum == "probes" && x.Pi != 1 {
				t.Errorf("probe stratum taken whole, inclusion %v, want 1", x.Pi)
			}
		}
		if n["probes"] != 20 || n["quiet"] != 10 {
			t.Errorf("per stratum %v, want probes 20, quiet 10", n)
		}
	})
	t.Run("a weight below 1 is refused", func(t *testing.T) {
		if _, err := Draw(cands, SampleOptions{N: 20, OversampleProbes: 0.5}); err == nil {
			t.Error("W = 0.5: want an error")
		}
	})
	t.Run("without oversampling the batch is unchanged", func(t *testing.T) {
		a, _ := Sample(cands, SampleOptions{N: 20, Seed: 3})
		d, _ := Draw(cands, SampleOptions{N: 20, Seed: 3})
		if fmt.Sprint(a) != fmt.Sprint(d.Assignments) {
			t.Error("Draw and Sample differ without oversampling")
		}
	})
}

// TestProbeGuidedEstimateUnbiased: a population of 1,500 episodes where
// probes fired on 15%; the simulator erred in 40% of those and 5% of the
// others (planted). Probe-guided batches of 150 with W = 4 over 300 seeds:
// the weighted error share must be unbiased (its mean within 3 standard
// errors of the population share) and its 95% interval must cover the
// population share in 90-99% of the seeds, while the unweighted share of
// the same batches is biased upwards (so the weighting is what makes it
// right). It prints the numbers.
func TestProbeGuidedEstimateUnbiased(t *testing.T) {
	const N, n, W, seeds = 1500, 150, 4.0, 300
	r := rand.New(rand.NewPCG(11, 12))
	var cands []queries.ReviewCandidate
	hasErr := map[string]bool{}
	errs := 0
	for i := range N {
		id := fmt.Sprintf("e%04d", i)
		fired := r.Float64() < 0.15
		p := 0.05
		if fired {
			p = 0.40
		}
		hasErr[id] = r.Float64() < p
		if hasErr[id] {
			errs++
		}
		cands = append(cands, queries.ReviewCandidate{SimulationID: id, Domain: "d", ProbesFired: fired})
	}
	truth := float64(errs) / N
	var sum, sum2, sumRaw float64
	covered := 0
	for s := range seeds {
		d, err := Draw(cands, SampleOptions{N: n, Seed: uint64(s) + 1, OversampleProbes: W})
		if err != nil {
			t.Fatal(err)
		}
		var items []analysis.ReviewItem
		for _, x := range d.Inclusion {
			it := analysis.ReviewItem{Episode: x.SimulationID, Reviewer: "a", Kind: analysis.ReviewerHuman, Outcome: analysis.ReviewNoError,
				Domain: "d", Pi: x.Pi, Stratum: x.Stratum}
			if hasErr[x.SimulationID] {
				it.Outcome = analysis.ReviewError
				it.Errors = []analysis.ReviewFinding{{Code: "other", Severity: analysis.SeverityMinor}}
			}
			items = append(items, it)
		}
		st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Weighted {
			t.Fatal("a probe-guided batch's statistics are not weighted")
		}
		e := st.Overall.Error
		sum += e.P
		sum2 += e.P * e.P
		sumRaw += float64(e.K) / float64(e.N)
		if e.Lo <= truth && truth <= e.Hi {
			covered++
		}
	}
	mean := sum / seeds
	se := math.Sqrt((sum2/seeds - mean*mean) / seeds)
	cov := float64(covered) / seeds
	raw := sumRaw / seeds
	t.Logf("population error share %.4f; %d probe-guided batches of %d (W %.0f): mean weighted %.4f (SE %.4f), coverage %.3f; mean unweighted %.4f",
		truth, seeds, n, W, mean, se, cov, raw)
	if math.Abs(mean-truth) > 3*se {
		t.Errorf("weighted mean %.4f is %.1f standard errors from the population share %.4f", mean, math.Abs(mean-truth)/se, truth)
	}
	if cov < 0.90 || cov > 0.99 {
		t.Errorf("coverage %.3f, want 0.90-0.99", cov)
	}
	if raw < truth+0.05 {
		t.Errorf("unweighted mean %.4f is not biased above %.4f: the test cannot tell weighting from none", raw, truth)
	}
}

// TestProbeGuidedCorrectedShare: the LLM reviewer (planted Se 0.80, Sp
// 0.93) reviews every episode of a fresh corpus of 3,000 per seed (probes
// fire on 15%, the simulator errs in 40% of those and 5% of the others:
// a process rate of 0.15*0.40 + 0.85*0.05 = 0.1025); people review a
// probe-guided batch of 250 (W = 4). The corrected share, with the
// sensitivity and specificity weighted back, must cover 0.1025 in 92-98%
// of 200 seeds. It prints the numbers.
func TestProbeGuidedCorrectedShare(t *testing.T) {
	const N, n, W, seeds, rate, se, sp = 3000, 250, 4.0, 200, 0.1025, 0.80, 0.93
	covered := 0
	var sumEst, sumSe, sumSp float64
	for s := range seeds {
		r := rand.New(rand.NewPCG(uint64(s)+100, 13))
		var cands []queries.ReviewCandidate
		var items []analysis.ReviewItem
		truth := map[string]bool{}
		for i := range N {
			id := fmt.Sprintf("e%04d", i)
			fired := r.Float64() < 0.15
			p := 0.05
			if fired {
				p = 0.40
			}
			truth[id] = r.Float64() < p
			llm := r.Float64() < se
			if !truth[id] {
				llm = r.Float64() >= sp
			}
			cands = append(cands, queries.ReviewCandidate{SimulationID: id, Domain: "d", ProbesFired: fired})
			items = append(items, decided(id, "llm:x", analysis.ReviewerLLM, llm, 0, ""))
		}
		d, err := Draw(cands, SampleOptions{N: n, Seed: uint64(s) + 1, OversampleProbes: W})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range d.Inclusion {
			items = append(items, decided(x.SimulationID, "ann", analysis.ReviewerHuman, truth[x.SimulationID], x.Pi, x.Stratum))
		}
		st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{Bootstrap: analysis.BootstrapOptions{Seed: uint64(s) + 1}})
		if err != nil {
			t.Fatal(err)
		}
		c := st.LLM[0].CorrectedError
		if !st.Weighted || !c.Se.Weighted {
			t.Fatalf("seed %d: not weighted (%v, %+v)", s, st.Weighted, c.Se)
		}
		if c.Lo <= rate && rate <= c.Hi {
			covered++
		}
		sumEst += c.Estimate
		sumSe += c.Se.P
		sumSp += c.Sp.P
	}
	cov := float64(covered) / seeds
	t.Logf("process rate %.4f, LLM Se %.2f Sp %.2f; %d seeds: coverage %.3f, mean corrected %.4f, mean weighted Se %.3f, Sp %.3f",
		rate, se, sp, seeds, cov, sumEst/seeds, sumSe/seeds, sumSp/seeds)
	if cov < 0.92 || cov > 0.98 {
		t.Errorf("coverage %.3f, want 0.92-0.98", cov)
	}
}

func decided(id, reviewer, kind string, hasErr bool, pi float64, stratum string) analysis.ReviewItem {
	it := analysis.ReviewItem{Episode: id, Reviewer: reviewer, Kind: kind, Outcome: analysis.ReviewNoError, Domain: "d", Pi: pi, Stratum: stratum}
	if hasErr {
		it.Outcome = analysis.ReviewError
		it.Errors = []analysis.ReviewFinding{{Code: "other", Severity: analysis.SeverityMinor}}
	}
	return it
}
