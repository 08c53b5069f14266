package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/ub-bench/ub"
)

// fep is a scored episode (one applicable criterion) with fidelity f and
// reward r.
func fep(sim, dom, task string, trial, f int, r float64) ub.FidelityEpisode {
	e := ub.FidelityEpisode{ID: fmt.Sprintf("%s/%s/%s/%d", sim, dom, task, trial), Simulator: sim, Agent: "agent", Domain: dom, Task: task,
		Trial: trial, Reward: r, Cost: math.NaN()}
	e.Applicable[1] = 1
	if f == 0 {
		e.Failed[1] = 1
	}
	return e
}

func TestFidelityIntervalsAgainstAnIndependentBootstrap(t *testing.T) {
	// Two simulators on 2 domains x 6 tasks; f and R vary by task.
	var eps []ub.FidelityEpisode
	fA := map[string][]int{"d1": {1, 1, 0, 1, 0, 1}, "d2": {1, 0, 0, 1, 1, 1}}
	fB := map[string][]int{"d1": {0, 1, 0, 0, 0, 1}, "d2": {1, 0, 0, 0, 1, 0}}
	for _, d := range []string{"d1", "d2"} {
		for j := range 6 {
			task := fmt.Sprint(j)
			eps = append(eps, fep("A", d, task, 0, fA[d][j], float64(j%2)), fep("B", d, task, 0, fB[d][j], float64((j+1)%2)))
		}
	}
	opts := BootstrapOptions{B: 300, Seed: 11}
	got := FidelityIntervals(slices.Values(eps), 1, map[string]float64{"A": 2, "B": 1}, []float64{0.5}, RulePoint, opts)
	// Independent recomputation of A's replicate UFS: replay the documented
	// draws (domains in order, six draws each), average f over the drawn
	// tasks per domain, then over domains.
	r := NewBootstrapRand(11)
	var repsA, repsB []float64
	for range 300 {
		var ua, ub float64
		for _, d := range []string{"d1", "d2"} {
			var sa, sb float64
			for range 6 {
				j := r.IntN(6)
				sa += float64(fA[d][j])
				sb += float64(fB[d][j])
			}
			ua += sa / 6 / 2
			ub += sb / 6 / 2
		}
		repsA, repsB = append(repsA, ua), append(repsB, ub)
	}
	sort.Float64s(repsA)
	// type 7 with n = 300: h = 299 * .025 = 7.475 and 299 * .975 = 291.525
	lo := repsA[7] + 0.475*(repsA[8]-repsA[7])
	hi := repsA[291] + 0.525*(repsA[292]-repsA[291])
	a := got.Sims[0]
	checkFloat(t, "UFS A", a.UFS.Estimate, (4.0/6+4.0/6)/2, 1e-12)
	checkFloat(t, "UFS A lo", a.UFS.Lo, lo, 1e-12)
	checkFloat(t, "UFS A hi", a.UFS.Hi, hi, 1e-12)
	// Wilson per domain: A has 4 of 6 in d1.
	w, _ := Wilson(4, 6, Confidence)
	if a.Domains[0].UFS != w {
		t.Errorf("A d1 = %+v, want %+v", a.Domains[0].UFS, w)
	}
	// Choice stability at q = .5: B is cheaper, so B is chosen in a
	// replicate when its UFS >= .5, else A when A's is; recount it.
	var wantB, wantA float64
	// Replay once more in step (A and B come from the same draws).
	r = NewBootstrapRand(11)
	for range 300 {
		var ua, ub float64
		for _, d := range []string{"d1", "d2"} {
			var sa, sb float64
			for range 6 {
				j := r.IntN(6)
				sa += float64(fA[d][j])
				sb += float64(fB[d][j])
			}
			ua += sa / 12
			ub += sb / 12
		}
		switch {
		case ub >= 0.5:
			wantB++
		case ua >= 0.5:
			wantA++
		}
	}
	st := got.Stability[0]
	checkFloat(t, "share A", st.Share[0], wantA/300, 1e-12)
	checkFloat(t, "share B", st.Share[1], wantB/300, 1e-12)
	checkFloat(t, "none", st.None, 1-(wantA+wantB)/300, 1e-12)
	// B's UFS is (2/6 + 2/6)/2 = 1/3 < .5: A is chosen on the point.
	if st.Chosen != "A" || got.Choices[0].Simulator != "A" {
		t.Errorf("chosen %q, want A", st.Chosen)
	}
	// The lower rule needs A's lower bound >= .5.
	low := FidelityIntervals(slices.Values(eps), 1, map[string]float64{"A": 2, "B": 1}, []float64{0.5}, RuleLower, opts)
	want := ""
	if lo >= 0.5 {
		want = "A"
	}
	if low.Choices[0].Simulator != want {
		t.Errorf("lower rule chose %q, want %q (A's lower bound %.3f)", low.Choices[0].Simulator, want, lo)
	}
}

func TestPairwiseFidelity(t *testing.T) {
	// A and B on 8 tasks of one domain: f pairs (A, B) give b = 5 (A 1, B 0)
	// and c = 1, so exact p = 2 (1 + 6) / 64 = .21875. C met another agent:
	// confounded. R: A succeeds on tasks 0-5, B on 0-1: b = 4, c = 0,
	// p = 2/16 = .125 (C's pairs test f only).
	fa := []int{1, 1, 1, 1, 1, 0, 1, 0}
	fb := []int{0, 0, 0, 0, 0, 1, 1, 0}
	var eps []ub.FidelityEpisode
	for j := range 8 {
		ra, rb := 0.0, 0.0
		if j < 6 {
			ra = 1
		}
		if j < 2 {
			rb = 1
		}
		for k := range 3 { // three trials each: 24 pairs, b = 15, c = 3
			eps = append(eps, fep("A", "d", fmt.Sprint(j), k, fa[j], ra), fep("B", "d", fmt.Sprint(j), k, fb[j], rb))
		}
		c := fep("C", "d", fmt.Sprint(j), 0, 1, 1)
		c.Agent = "other"
		eps = append(eps, c)
	}
	got := PairwiseFidelity(slices.Values(eps), 1, BootstrapOptions{B: 200, Seed: 5})
	if len(got) != 3 {
		t.Fatalf("%d pairs, want 3", len(got))
	}
	ab := got[0]
	// b = 15, c = 3 on 18 discordant pairs: python3 -c 'from math import
	// comb; print(2*sum(comb(18,i) for i in range(4))/2**18)' = 0.007537841796875
	if ab.A != "A" || ab.B != "B" || ab.F.B != 15 || ab.F.C != 3 || ab.Pairs != 24 || ab.Tasks != 8 {
		t.Fatalf("A-B = %+v", ab)
	}
	checkFloat(t, "p f", ab.F.P, 0.007537841796875, 1e-15)
	// success: b = 12, c = 0: p = 2 / 2^12
	checkFloat(t, "p success", ab.Success.P, 2.0/4096, 1e-15)
	// only one pair tested: Holm leaves it
	checkFloat(t, "Holm f", ab.FHolm, ab.F.P, 0)
	checkFloat(t, "diff UFS", ab.DiffUFS.Estimate, 6.0/8-2.0/8, 1e-12)
	checkFloat(t, "diff R", ab.DiffR.Estimate, 6.0/8-2.0/8, 1e-12)
	if !(ab.DiffUFS.Lo <= ab.DiffUFS.Estimate && ab.DiffUFS.Estimate <= ab.DiffUFS.Hi) {
		t.Errorf("interval %+v does not hold its estimate", ab.DiffUFS)
	}
	// C met another agent: f is compared (C has f = 1 on its 8 episodes,
	// paired with trial 0 of A and B), success and R are not. But C has 8
	// scored episodes, below MinScored: not tested at all.
	for _, pc := range got[1:] {
		if !pc.Confounded || pc.Reason != "fewer than 20 scored episodes" || !math.IsNaN(pc.FHolm) || pc.Tasks != 8 {
			t.Errorf("%s-%s: %+v", pc.A, pc.B, pc)
		}
	}
	// With three trials C is above the rule: its f against A is tested
	// (A's 24 paired episodes against C's all-faithful ones: b = 0, c = 6
	// (A's f = 0 on tasks 5 and 7, three trials each), p = 2/64), R not.
	for j := range 8 {
		for k := 1; k < 3; k++ {
			c := fep("C", "d", fmt.Sprint(j), k, 1, 1)
			c.Agent = "other"
			eps = append(eps, c)
		}
	}
	got = PairwiseFidelity(slices.Values(eps), 1, BootstrapOptions{B: 200, Seed: 5})
	ac := got[1]
	if ac.B != "C" || !ac.Confounded || ac.Reason != "" || ac.F.B != 0 || ac.F.C != 6 || !math.IsNaN(ac.Success.P) || !math.IsNaN(ac.DiffR.Estimate) {
		t.Fatalf("A-C = %+v", ac)
	}
	checkFloat(t, "p f A-C", ac.F.P, 2.0/64, 1e-15)
	// Holm over the three f tests; the success family holds A-B alone.
	checkFloat(t, "Holm success A-B", got[0].SuccessHolm, got[0].Success.P, 0)
}

func TestFidelityTrials(t *testing.T) {
	// A: task x 4 trials with 3 successes and f = 1,1,0,1; task y 2 trials
	// with 2 successes, f 1,1. pass^2 = (C(3,2)/C(4,2) + 1) / 2 = (1/2 + 1)/2
	// = .75; pass^3: only task x, C(3,3)/C(4,3) = 1/4. UFS^2: (C(3,2)/C(4,2)
	// + 1)/2 = .75 as well.
	var eps []ub.FidelityEpisode
	for k, v := range [][2]int{{1, 1}, {1, 1}, {0, 0}, {1, 1}} {
		eps = append(eps, fep("A", "d", "x", k, v[1], float64(v[0])))
	}
	eps = append(eps, fep("A", "d", "y", 0, 1, 1), fep("A", "d", "y", 1, 1, 1))
	rows := FidelityTrials(slices.Values(eps), 1, 3)
	if len(rows) != 1 || rows[0].MaxTrials != 4 || rows[0].Tasks != 2 {
		t.Fatalf("rows %+v", rows)
	}
	checkFloat(t, "pass^1", rows[0].PassK[0].Value, (0.75+1)/2, 1e-15)
	checkFloat(t, "pass^2", rows[0].PassK[1].Value, 0.75, 1e-15)
	checkFloat(t, "pass^3", rows[0].PassK[2].Value, 0.25, 1e-15)
	checkFloat(t, "UFS^2", rows[0].UFSK[1].Value, 0.75, 1e-15)
}

func TestRewardVarianceAndSmallSimulators(t *testing.T) {
	// The hand-worked 3 x 3 table of TestDecomposeVariance with 7 tasks of
	// each row pattern; a fourth simulator with 1 episode is below MinScored
	// and is left out (as is a NaN reward).
	y := [][]float64{{0, 4, 8}, {1, 5, 12}, {5, 9, 10}}
	var rows []TrialReward
	var eps []ub.FidelityEpisode
	for j := range 3 {
		for i := range 3 {
			for k := range 7 {
				task := fmt.Sprint(i, "-", k)
				rows = append(rows, TrialReward{"b", "d", fmt.Sprint("s", j), "agent", task, 0, y[i][j]})
				eps = append(eps, fep(fmt.Sprint("s", j), "d", task, 0, 1, y[i][j]))
			}
		}
	}
	rows = append(rows, TrialReward{"b", "d", "tiny", "agent", "0-0", 0, 0}, TrialReward{"b", "d", "s0", "agent", "0-0", 1, math.NaN()})
	eps = append(eps, fep("tiny", "d", "0-0", 0, 1, 0))
	small, n := SmallSimulators(UFSBySimulator(slices.Values(eps), 1))
	if len(small) != 1 || small[0] != "tiny" || n[0] != 1 {
		t.Fatalf("small = %v %v", small, n)
	}
	dv := RewardVariance(slices.Values(rows))
	if len(dv) != 1 || dv[0].Err != "" || len(dv[0].Excluded) != 1 || dv[0].Excluded[0] != "tiny" {
		t.Fatalf("got %+v", dv)
	}
	// By hand: row means 4, 6, 8 each over 7 tasks, grand mean 6:
	// SS_task = 3 * 7 * (4 + 0 + 4) = 168 on 20 df, MS 8.4; SS_sim = 21 *
	// (16 + 0 + 16) = 672, MS 336; residual SS = 7 * 12 = 84 on 40 df, MS
	// 2.1. s2_task = (8.4 - 2.1)/3 = 2.1, s2_sim = (336 - 2.1)/21 = 15.9,
	// residual 2.1.
	d := dv[0].Decomposition
	checkFloat(t, "task", d.Components[0].Variance, 2.1, 1e-9)
	checkFloat(t, "sim", d.Components[1].Variance, 15.9, 1e-9)
	checkFloat(t, "residual", d.Components[2].Variance, 2.1, 1e-9)
}

// TestPairwiseFidelityPairsByTrialThenID: episodes of a task pair in trial
// order, ties by id, whatever order they come in. On 10 tasks over two
// domains A and B each have two episodes of trial 0: A's come as a-2 (f
// 1) then a-1 (f 0), B's as b-1 (f 0) then b-2 (f 1). By id they pair
// a-1 with b-1 and a-2 with b-2, all concordant; by arrival all 20 would
// be discordant. Task 0 of d1 also has a trial 1 of each, A's (f 1)
// coming first of all and B's (f 0) last: one discordant pair, b = 1,
// c = 0, 21 pairs. Difference in UFS: d1 has 11 pairs with f(A) - f(B)
// summing to 1, d2 10 pairs summing to 0; unweighted over the domains
// (1/11 + 0) / 2 = 1/22.
func TestPairwiseFidelityPairsByTrialThenID(t *testing.T) {
	ep := func(sim, id, dom string, task, trial, f int) ub.FidelityEpisode {
		e := fep(sim, dom, fmt.Sprint(task), trial, f, 1)
		e.ID = id
		return e
	}
	eps := []ub.FidelityEpisode{ep("A", "a-0-t1", "d1", 0, 1, 1)}
	for task := range 10 {
		dom := "d1"
		if task >= 5 {
			dom = "d2"
		}
		id := func(s string, k int) string { return fmt.Sprintf("%s-%d-%d", s, task, k) }
		eps = append(eps, ep("A", id("a", 2), dom, task, 0, 1), ep("B", id("b", 1), dom, task, 0, 0),
			ep("A", id("a", 1), dom, task, 0, 0), ep("B", id("b", 2), dom, task, 0, 1))
	}
	eps = append(eps, ep("B", "b-0-t1", "d1", 0, 1, 0))
	got := PairwiseFidelity(slices.Values(eps), 1, BootstrapOptions{B: 50, Seed: 1})
	if len(got) != 1 {
		t.Fatalf("%d pairs, want 1", len(got))
	}
	ab := got[0]
	if ab.Reason != "" || ab.Tasks != 10 || ab.Pairs != 21 || ab.F.B != 1 || ab.F.C != 0 {
		t.Fatalf("A-B = %+v; want 10 tasks, 21 pairs, b = 1, c = 0", ab)
	}
	checkFloat(t, "diff UFS", ab.DiffUFS.Estimate, 1.0/22, 1e-15)
}
