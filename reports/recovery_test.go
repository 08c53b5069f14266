package reports

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/ub-bench/ub/sim/synth"
)

// Recovery: on synthetic studies from recoverySeeds seeds, the intervals
// the report prints must cover the values sim/synth planted at about the
// nominal 95%. Each seed draws new developers, so the planted accuracy is
// the population mean the macro interval estimates, and the planted lift
// the mean the paired interval estimates.
//
// Tolerance: coverage within [0.85, 1]. The checks of one seed share its
// developers, so they are not independent; with about 20 independent
// seeds' worth of checks per family the standard error of a 95% coverage
// is about sqrt(0.95 * 0.05 / 20) = 0.05, and 0.85 is two of them below
// nominal: a correct interval passes, while an interval that ignored the
// spread between developers (coverage near 0.8 in analysis's recovery
// tests) or a biased estimate would not. Printed bounds are rounded to
// three decimals, so a bound within 0.0005 of the planted value covers it.
const (
	recoverySeeds = 24
	minCoverage   = 0.85
)

type coverage struct{ in, n int }

func (c *coverage) check(planted, lo, hi float64) {
	c.n++
	if lo-0.0005 <= planted && planted <= hi+0.0005 {
		c.in++
	}
}

func (c coverage) rate() float64 { return float64(c.in) / float64(c.n) }

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("table cell %q: %v", s, err)
	}
	return v
}

func build(t *testing.T, r *Report, fn func(*Report) (*figure, error)) *figure {
	t.Helper()
	f, err := fn(r)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRecoveryOfPlantedEffects(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 24 synthetic studies")
	}
	planted := map[string]synth.Simulator{}
	for _, s := range synth.Planted() {
		planted[s.Name] = s
	}
	// One study per seed, two at a time (each holds its own in-memory
	// workspace); the checks are tallied after all have run.
	type result struct {
		acc, lift, effort, history coverage
		curve                      map[int]float64
	}
	results := make([]result, recoverySeeds)
	t.Run("seeds", func(t *testing.T) {
		for i := range results {
			seed := uint64(i + 1)
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				results[i] = recoverSeed(t, seed, planted)
			})
		}
	})
	var acc, lift, effort, history coverage
	peaks := map[int]int{}
	curve := map[int]float64{}
	beatsAnchor := 0
	for _, res := range results {
		for _, p := range []struct{ to, from *coverage }{{&acc, &res.acc}, {&lift, &res.lift}, {&effort, &res.effort}, {&history, &res.history}} {
			p.to.in += p.from.in
			p.to.n += p.from.n
		}
		best := 0
		for _, n := range sortedInts(res.curve) {
			curve[n] += res.curve[n] / recoverySeeds
			if best == 0 || res.curve[n] > res.curve[best] {
				best = n
			}
		}
		peaks[best]++
		if res.curve[best] > res.curve[synth.AnchorN] {
			beatsAnchor++
		}
	}
	for name, c := range map[string]coverage{"accuracy": acc, "profile lift": lift, "effort difference": effort, "flat history": history} {
		t.Logf("%s: %d of %d intervals cover the planted value (%.3f)", name, c.in, c.n, c.rate())
		if c.rate() < minCoverage {
			t.Errorf("%s: coverage %.3f below %.2f", name, c.rate(), minCoverage)
		}
	}
	t.Run("the planted context peak is found", func(t *testing.T) {
		near := 0
		for n, k := range peaks {
			if n >= synth.PlantedPeak-2 && n <= synth.PlantedPeak+2 {
				near += k
			}
		}
		meanPeak := 0
		for _, n := range sortedInts(curve) {
			if meanPeak == 0 || curve[n] > curve[meanPeak] {
				meanPeak = n
			}
		}
		t.Logf("per-seed peaks %v; peak of the mean curve N = %d; %d of %d seeds peak above N = 14", fmt.Sprint(peaks), meanPeak, beatsAnchor, recoverySeeds)
		if meanPeak != synth.PlantedPeak {
			t.Errorf("the mean curve over %d seeds peaks at N = %d, planted %d", recoverySeeds, meanPeak, synth.PlantedPeak)
		}
		if float64(near) < 0.75*recoverySeeds {
			t.Errorf("only %d of %d seeds peak within 2 of N = %d", near, recoverySeeds, synth.PlantedPeak)
		}
		if float64(beatsAnchor) < minCoverage*recoverySeeds {
			t.Errorf("the peak beats N = 14 in only %d of %d seeds", beatsAnchor, recoverySeeds)
		}
	})
}

func sortedInts(m map[int]float64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// recoverSeed checks one synthetic study's reported intervals against the
// planted values and returns its constant-dose context curve.
func recoverSeed(t *testing.T, seed uint64, planted map[string]synth.Simulator) (res struct {
	acc, lift, effort, history coverage
	curve                      map[int]float64
}) {
	r := synthReport(t, "", seed, 1)
	for _, row := range build(t, r, (*Report).leaderboard).table.rows {
		if row[1] == "chance line" {
			continue
		}
		res.acc.check(planted[row[1]].Conditions[row[2]].Accuracy, num(t, row[4]), num(t, row[5]))
	}
	for _, row := range build(t, r, (*Report).ablationTerse).table.rows {
		if row[1] == "terse" {
			res.acc.check(planted[row[0]].Conditions["terse"].Accuracy, num(t, row[3]), num(t, row[4]))
		}
	}
	for _, row := range build(t, r, (*Report).profileEffect).table.rows {
		res.lift.check(planted[row[0]].Lift(), num(t, row[4]), num(t, row[5]))
	}
	for _, row := range build(t, r, (*Report).effort).table.rows {
		lo, hi := planted[row[2]], planted[row[3]]
		res.effort.check(hi.Conditions[row[1]].Accuracy-lo.Conditions[row[1]].Accuracy, num(t, row[9]), num(t, row[10]))
	}
	// The history axis is flat: every K against K = 0 (history sweep,
	// substitution) and every surface row's K64 - K0 and the interaction
	// plant zero.
	for _, row := range build(t, r, (*Report).historySweep).table.rows {
		if row[2] != "0" {
			res.history.check(0, num(t, row[9]), num(t, row[10]))
		}
	}
	for _, row := range build(t, r, (*Report).contextHeatmap).table.rows {
		if row[0] == "K64-K0" || row[0] == "interaction" {
			res.history.check(0, num(t, row[4]), num(t, row[5]))
		}
	}
	// The context curve on the constant-dose view, where every N shows
	// exactly N turns.
	res.curve = map[int]float64{}
	for _, row := range build(t, r, (*Report).contextScaling).table.rows {
		if row[0] == "constant dose" {
			res.curve[int(num(t, row[2]))] = num(t, row[3])
		}
	}
	return res
}
