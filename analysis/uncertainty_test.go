package analysis

import (
	"math"
	"sort"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	// Hand binomial computations, X ~ Binomial(b+c, 1/2):
	//   b=1, c=6:  P(X<=1) = (1 + 7) / 2^7 = 8/128, p = 16/128 = .125
	//   b=2, c=10: P(X<=2) = (1 + 12 + 66) / 2^12 = 79/4096, p = 158/4096
	//   b=5, c=5:  P(X<=5) > 1/2, p = 1
	//   b=0, c=0:  no discordant pair, p = 1
	// and Agresti (2013), Categorical Data Analysis, Table 11.1 (approval of
	// the President's performance in two surveys, 794/150/86/570): b = 150,
	// c = 86; the exact p from
	//   python3 -c 'from math import comb; n=236; print(2*sum(comb(n,i) for i in range(87))/2**n)'
	// is 3.715936139571442e-05 (Agresti gives z^2 = 17.36 for the
	// asymptotic test, p < .0001). Past 1000 discordant pairs the sum runs in
	// log space: b = 560, c = 640 gives
	//   python3 -c 'from math import comb; n=1200; print(2*sum(comb(n,i) for i in range(561))/2**n)'
	// = 0.02253662756750957.
	for _, c := range []struct {
		b, c, n int
		want    float64
	}{
		{1, 6, 20, 0.125},
		{6, 1, 7, 0.125},
		{2, 10, 12, 158.0 / 4096},
		{5, 5, 40, 1},
		{0, 0, 9, 1},
		{150, 86, 1600, 3.715936139571442e-05},
		{560, 640, 1200, 0.02253662756750957},
	} {
		m, err := McNemarExact(c.b, c.c, c.n)
		if err != nil {
			t.Fatal(err)
		}
		checkFloat(t, "P", m.P, c.want, 1e-10*c.want)
	}
	if _, err := McNemarExact(3, 4, 5); err == nil {
		t.Error("7 discordant pairs of 5 accepted")
	}
	t.Run("paired outcomes count the discordant pairs", func(t *testing.T) {
		x := []int{1, 1, 0, 0, 1, 0, 1}
		y := []int{1, 0, 1, 1, 0, 1, 1}
		m, err := McNemarPaired(x, y)
		if err != nil {
			t.Fatal(err)
		}
		// b = 2 (positions 1, 4), c = 3 (2, 3, 5): P(X<=2) = (1+5+10)/32, p = 1
		if m.B != 2 || m.C != 3 || m.N != 7 || m.P != 1 {
			t.Errorf("got %+v, want b 2, c 3, n 7, p 1", m)
		}
		if _, err := McNemarPaired([]int{2}, []int{0}); err == nil {
			t.Error("outcome 2 accepted")
		}
	})
}

func TestHolm(t *testing.T) {
	// Hand computation, m = 4: sorted .005 .01 .03 .04 times 4 3 2 1 gives
	// .02 .03 .06 .04; the running maximum makes the last .06.
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		checkFloat(t, "adj", got[i], want[i], 1e-15)
	}
	// Capped at 1 and monotone: .5 * 2 = 1, then max(1, .6) = 1.
	got = Holm([]float64{0.6, 0.5})
	checkFloat(t, "adj0", got[0], 1, 0)
	checkFloat(t, "adj1", got[1], 1, 0)
	// A NaN is not a test: m = 2 for the others, .01*2 = .02, .04*1 -> .04.
	got = Holm([]float64{0.04, math.NaN(), 0.01})
	checkFloat(t, "adj0", got[0], 0.04, 1e-15)
	checkFloat(t, "adj1", got[1], math.NaN(), 0)
	checkFloat(t, "adj2", got[2], 0.02, 1e-15)
}

func TestPassHatK(t *testing.T) {
	tasks := []TaskTrials{{N: 4, C: 2}, {N: 4, C: 4}, {N: 3, C: 1}, {N: 1, C: 1}}
	// k = 2, by hand: C(2,2)/C(4,2) = 1/6, C(4,2)/C(4,2) = 1, C(1,2) = 0;
	// the 1-trial task is short. (1/6 + 1 + 0) / 3 = 7/18.
	p, err := PassHatK(tasks, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkFloat(t, "pass^2", p.Value, 7.0/18, 1e-15)
	if p.Tasks != 3 || p.Short != 1 {
		t.Errorf("tasks %d short %d, want 3 and 1", p.Tasks, p.Short)
	}
	// k = 1 is the mean success rate: (2/4 + 1 + 1/3 + 1) / 4 = 17/24.
	p, _ = PassHatK(tasks, 1)
	checkFloat(t, "pass^1", p.Value, 17.0/24, 1e-15)
	// k = 4: only the 4-trial tasks, 0 and 1: 1/2.
	p, _ = PassHatK(tasks, 4)
	checkFloat(t, "pass^4", p.Value, 0.5, 1e-15)
	p, _ = PassHatK(tasks, 5)
	checkFloat(t, "pass^5", p.Value, math.NaN(), 0)
	if _, err := PassHatK(tasks, 0); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := PassHatK([]TaskTrials{{N: 2, C: 3}}, 1); err == nil {
		t.Error("3 successes in 2 trials accepted")
	}
}

func TestClusterBootstrap(t *testing.T) {
	// Two strata (domains) of clusters (tasks) with per-task values; the
	// statistic is the unweighted mean over strata of the task-weighted
	// stratum means.
	vals := [][]float64{{1, 0, 1, 1, 0}, {0.2, 0.9, 0.4}}
	sizes := []int{5, 3}
	stat := func(counts [][]int) float64 {
		var m float64
		for s, c := range counts {
			var sum, n float64
			for j, k := range c {
				sum += float64(k) * vals[s][j]
				n += float64(k)
			}
			m += sum / n / float64(len(counts))
		}
		return m
	}
	opts := BootstrapOptions{B: 200, Seed: 7}
	got := ClusterBootstrap(sizes, opts, stat)
	// Independent recomputation: replay the documented draws with a fresh
	// generator, build each resample as a list of values, average it, and
	// take the type 7 quantiles by hand.
	r := NewBootstrapRand(7)
	reps := make([]float64, 200)
	for b := range reps {
		var m float64
		for s, n := range sizes {
			var xs []float64
			for range n {
				xs = append(xs, vals[s][r.IntN(n)])
			}
			var sum float64
			for _, x := range xs {
				sum += x
			}
			m += sum / float64(len(xs)) / 2
		}
		reps[b] = m
	}
	sort.Float64s(reps)
	// type 7 at .025 with n = 200: h = 199 * .025 = 4.975
	lo := reps[4] + 0.975*(reps[5]-reps[4])
	// at .975: h = 194.025
	hi := reps[194] + 0.025*(reps[195]-reps[194])
	checkFloat(t, "Estimate", got.Estimate, (0.6+0.5)/2, 1e-12)
	checkFloat(t, "Lo", got.Lo, lo, 1e-12)
	checkFloat(t, "Hi", got.Hi, hi, 1e-12)
	if got.B != 200 || got.Dropped != 0 {
		t.Errorf("B %d dropped %d", got.B, got.Dropped)
	}
	again := ClusterBootstrap(sizes, opts, stat)
	if again != got {
		t.Errorf("same seed gave %+v then %+v", got, again)
	}
	other := ClusterBootstrap(sizes, BootstrapOptions{B: 200, Seed: 8}, stat)
	if other.Lo == got.Lo && other.Hi == got.Hi {
		t.Error("another seed gave the same interval")
	}
	t.Run("NaN replicates are dropped and counted", func(t *testing.T) {
		n := 0
		b := ClusterBootstrap([]int{2}, BootstrapOptions{B: 10, Seed: 1}, func(c [][]int) float64 {
			n++
			if n%2 == 0 {
				return math.NaN()
			}
			return float64(c[0][0])
		})
		if b.Dropped != 5 || b.B != 10 || math.IsNaN(b.Lo) {
			t.Errorf("got %+v, want 5 of 10 dropped and a finite interval", b)
		}
	})
	t.Run("the percentile interval of a mean is near its normal interval", func(t *testing.T) {
		// 400 clusters of values 0..9 repeating: mean 4.5, sd 2.876, so the
		// normal 95% half width is 1.96 * 2.876 / 20 = .282. A 2000-replicate
		// percentile interval should agree to within a few hundredths.
		xs := make([]float64, 400)
		for i := range xs {
			xs[i] = float64(i % 10)
		}
		b := ClusterBootstrap([]int{400}, BootstrapOptions{B: 2000, Seed: 3}, func(c [][]int) float64 {
			var s float64
			for j, k := range c[0] {
				s += float64(k) * xs[j]
			}
			return s / 400
		})
		half := 1.959964 * math.Sqrt(8.25*400/399) / 20
		checkFloat(t, "Lo", b.Lo, 4.5-half, 0.03)
		checkFloat(t, "Hi", b.Hi, 4.5+half, 0.03)
	})
}

func TestPercentileInterval(t *testing.T) {
	// Python: statistics.quantiles([3,1,4,1,5,9,2,6], n=40, method="inclusive")
	// [0] and [-1] are the .025 and .975 quantiles: 1.0 and 8.475.
	lo, hi := PercentileInterval([]float64{3, 1, 4, 1, 5, 9, 2, 6}, 0.95)
	checkFloat(t, "lo", lo, 1.0, 1e-12)
	checkFloat(t, "hi", hi, 8.475, 1e-12)
	lo, hi = PercentileInterval(nil, 0.95)
	if !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("empty gave %v, %v", lo, hi)
	}
}

func TestDecomposeVariance(t *testing.T) {
	t.Run("one trial: task, simulator, residual", func(t *testing.T) {
		// Hand-worked 3 x 3 (rows tasks, columns simulators):
		//   t1:  0  4  8    row mean 4
		//   t2:  1  5 12    row mean 6
		//   t3:  5  9 10    row mean 8
		//   column means 2 6 10, grand mean 6.
		// SS_task = 3 (4 + 0 + 4) = 24, MS 12; SS_sim = 3 (16 + 0 + 16) = 96,
		// MS 48; residuals y - row - col + 6: 0 0 0 / -1 -1 2 / 1 1 -2, SS 12
		// on 4 df, MS 3. s2_task = (12 - 3)/3 = 3, s2_sim = (48 - 3)/3 = 15,
		// residual 3; shares 1/7, 5/7, 1/7.
		y := [][]float64{{0, 4, 8}, {1, 5, 12}, {5, 9, 10}}
		var obs []RewardObs
		for i, row := range y {
			for j, v := range row {
				obs = append(obs, RewardObs{Task: string(rune('a' + i)), Sim: string(rune('x' + j)), Y: v})
			}
		}
		d, err := DecomposeVariance(obs)
		if err != nil {
			t.Fatal(err)
		}
		want := []VarComponent{{"task", 3, 1.0 / 7}, {"simulator", 15, 5.0 / 7}, {"residual", 3, 1.0 / 7}}
		checkComponents(t, d, want)
		if d.Tasks != 3 || d.Sims != 3 || d.Trials != 1 {
			t.Errorf("layout %d x %d x %d", d.Tasks, d.Sims, d.Trials)
		}
	})
	t.Run("repeated trials: interaction and trial apart; unbalanced input trimmed", func(t *testing.T) {
		// Hand-worked 2 tasks x 2 simulators x 2 trials:
		//   t1 s1: 1 3 (2)   t1 s2: 5 7 (6)    row mean 4
		//   t2 s1: 3 5 (4)   t2 s2: 9 11 (10)  row mean 7
		//   column means 3, 8; grand 5.5.
		// SS_task = 2*2*(2.25+2.25) = 18, MS 18; SS_sim = 2*2*(6.25+6.25) = 50,
		// MS 50; interaction residuals +-.5, SS_AB = 2 * 4 * .25 = 2, MS 2;
		// within cells +-1, SS_E = 8 on 4 df, MS_E 2.
		// s2_trial = 2, s2_AB = (2-2)/2 = 0, s2_task = (18-2)/4 = 4,
		// s2_sim = (50-2)/4 = 12; total 18.
		obs := []RewardObs{
			{"t1", "s1", 1, 1}, {"t1", "s1", 2, 3}, {"t1", "s2", 1, 5}, {"t1", "s2", 2, 7},
			{"t2", "s1", 2, 5}, {"t2", "s1", 1, 3}, {"t2", "s2", 1, 9}, {"t2", "s2", 2, 11},
			// a third trial in one cell, and a task only s1 has: both dropped
			{"t2", "s2", 3, 100}, {"t3", "s1", 1, 50},
		}
		d, err := DecomposeVariance(obs)
		if err != nil {
			t.Fatal(err)
		}
		want := []VarComponent{{"task", 4, 4.0 / 18}, {"simulator", 12, 12.0 / 18}, {"task x simulator", 0, 0}, {"trial", 2, 2.0 / 18}}
		checkComponents(t, d, want)
		if d.DroppedTasks != 1 || d.DroppedObs != 2 || d.Trials != 2 {
			t.Errorf("dropped tasks %d obs %d trials %d, want 1, 2, 2", d.DroppedTasks, d.DroppedObs, d.Trials)
		}
	})
	t.Run("one simulator is refused", func(t *testing.T) {
		if _, err := DecomposeVariance([]RewardObs{{"a", "x", 0, 1}, {"b", "x", 0, 0}}); err == nil {
			t.Error("no error")
		}
	})
}

func checkComponents(t *testing.T, d VarianceDecomposition, want []VarComponent) {
	t.Helper()
	if len(d.Components) != len(want) {
		t.Fatalf("components %+v, want %+v", d.Components, want)
	}
	for i, w := range want {
		g := d.Components[i]
		if g.Name != w.Name {
			t.Errorf("component %d is %q, want %q", i, g.Name, w.Name)
		}
		checkFloat(t, w.Name+" variance", g.Variance, w.Variance, 1e-12)
		checkFloat(t, w.Name+" share", g.Share, w.Share, 1e-12)
	}
}

func TestKappaIntervalClippedAndDegenerate(t *testing.T) {
	// [[20, 1], [0, 20]]: kappa = .95125, Wald interval .8570 to 1.0455
	// (the formula of CohenKappa evaluated in plain Python); the upper bound
	// is clipped to 1.
	c := ConfusionOf([]string{"no", "yes"})
	c.Add("no", "no", 20)
	c.Add("no", "yes", 1)
	c.Add("yes", "yes", 20)
	k := CohenKappa(c)
	checkFloat(t, "Kappa", k.Kappa, 0.9512485136741974, 1e-12)
	checkFloat(t, "Lo", k.Lo, 0.8569820295074307, 1e-8)
	checkFloat(t, "Hi", k.Hi, 1, 0)
	if k.Degenerate != "" {
		t.Errorf("Degenerate = %q", k.Degenerate)
	}
	for name, labels := range map[string][2][]string{
		"perfect agreement": {{"a", "b", "a"}, {"a", "b", "a"}},
		"one category":      {{"a", "a"}, {"a", "a"}},
	} {
		c, _ := NewConfusion(labels[0], labels[1])
		k := CohenKappa(c)
		if k.Degenerate == "" || !math.IsNaN(k.Lo) || !math.IsNaN(k.Hi) {
			t.Errorf("%s: got %+v, want NaN bounds with a reason", name, k)
		}
	}
	if k := CohenKappa(ConfusionOf([]string{"a"})); k.Degenerate != "no items" {
		t.Errorf("empty table: Degenerate = %q", k.Degenerate)
	}
}
