package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Recovery tests: plant a known truth in simulated studies shaped like seed
// 000 (20 developers, 8 to 30 held-out moments each) and check that the
// reported 95% intervals cover it in about 95% of replications. With 2000
// replications the standard error of a coverage near 0.95 is
// sqrt(0.95 * 0.05 / 2000) = 0.0049, so [0.93, 0.97] is about +/-4 standard
// errors: a correct interval essentially never fails, while a gross error
// does. An interval over pooled moments, for one, ignores the spread between
// developers: here its standard error would be about 0.026 against a true
// 0.036, for a coverage near 0.81.

const (
	recoveryReps = 2000
	recoveryDevs = 20
)

// simulate returns one condition's outcomes: developer d has n[d] moments,
// each scored correctly with probability p[d].
func simulate(rng *rand.Rand, n []int, p []float64) []Outcome {
	var out []Outcome
	for d := range n {
		dev := fmt.Sprintf("dev%02d", d)
		for range n[d] {
			g := "approve"
			if rng.Float64() < p[d] {
				g = "directive"
			}
			out = append(out, Outcome{Developer: dev, Real: "directive", Generated: g})
		}
	}
	return out
}

func checkCoverage(t *testing.T, covered int) {
	t.Helper()
	rate := float64(covered) / recoveryReps
	t.Logf("coverage %.4f over %d replications", rate, recoveryReps)
	if rate < 0.93 || rate > 0.97 {
		t.Errorf("coverage %.4f, want within [0.93, 0.97]", rate)
	}
}

func TestMacroIntervalCoversPlantedAccuracy(t *testing.T) {
	// Each developer's true accuracy is drawn uniformly from truth +/- 0.2,
	// so the population mean of per-developer accuracy is truth.
	for _, tt := range []struct {
		truth float64
		seed  uint64
	}{{0.42, 1}, {0.55, 2}} {
		truth := tt.truth
		t.Run(fmt.Sprintf("planted %.2f is covered about 95%% of the time", truth), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2026, tt.seed))
			covered := 0
			for range recoveryReps {
				n := make([]int, recoveryDevs)
				p := make([]float64, recoveryDevs)
				for d := range n {
					n[d] = 8 + rng.IntN(23)
					p[d] = truth - 0.2 + 0.4*rng.Float64()
				}
				iv := MacroAccuracy(simulate(rng, n, p)).Accuracy
				if iv.Lo <= truth && truth <= iv.Hi {
					covered++
				}
			}
			checkCoverage(t, covered)
		})
	}
}

func TestPairedIntervalCoversPlantedLift(t *testing.T) {
	// A profile lift drawn per developer uniformly from lift +/- 0.1 on a
	// base accuracy in [0.3, 0.7]; both conditions score the same moments
	// independently. The population mean difference is lift.
	for _, tt := range []struct {
		lift float64
		seed uint64
	}{{0, 1}, {0.1, 2}} {
		lift := tt.lift
		t.Run(fmt.Sprintf("planted lift %.2f is covered about 95%% of the time", lift), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(99, tt.seed))
			covered := 0
			for range recoveryReps {
				n := make([]int, recoveryDevs)
				base := make([]float64, recoveryDevs)
				with := make([]float64, recoveryDevs)
				for d := range n {
					n[d] = 8 + rng.IntN(23)
					base[d] = 0.3 + 0.4*rng.Float64()
					with[d] = base[d] + lift - 0.1 + 0.2*rng.Float64()
				}
				p := PairedAccuracy(simulate(rng, n, with), simulate(rng, n, base))
				if p.Test.CI.Lo <= lift && lift <= p.Test.CI.Hi {
					covered++
				}
			}
			checkCoverage(t, covered)
		})
	}
}

func TestSweepFindsPlantedPeak(t *testing.T) {
	// A context curve that rises by 0.02 per turn to N = 8, then falls by
	// 0.01 per turn, developers scattered +/-0.15 around it, 24 moments
	// each. The peak is read off noisy data, so it need only land within one
	// setting of 8 and beat N = 14.
	curve := func(n int) float64 {
		if n <= 8 {
			return 0.35 + 0.02*float64(n)
		}
		return 0.51 - 0.01*float64(n-8)
	}
	rng := rand.New(rand.NewPCG(8, 14))
	settings := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14}
	n := make([]int, 40)
	offset := make([]float64, len(n))
	for d := range n {
		n[d] = 200
		offset[d] = -0.15 + 0.3*rng.Float64()
	}
	rows := map[int][]Outcome{}
	for _, s := range settings {
		p := make([]float64, len(n))
		for d := range p {
			p[d] = curve(s) + offset[d]
		}
		rows[s] = simulate(rng, n, p)
	}
	s, err := Sweep(rows, 14)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("peak is found near N=8", func(t *testing.T) {
		if s.Peak < 7 || s.Peak > 9 {
			t.Errorf("Peak = %d, want 7..9", s.Peak)
		}
	})
	t.Run("peak beats N=14 significantly", func(t *testing.T) {
		if s.PeakVsAnchor.Test.MeanDiff <= 0 || s.PeakVsAnchor.Test.P > 0.05 {
			t.Errorf("peak vs 14: %+v", s.PeakVsAnchor.Test)
		}
	})
	t.Run("log N correlates positively with accuracy", func(t *testing.T) {
		if s.LogR.R <= 0.3 {
			t.Errorf("LogR = %+v, want clearly positive", s.LogR)
		}
	})
}
