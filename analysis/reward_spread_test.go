package analysis

import (
	"math"
	"slices"
	"testing"
)

// TestRewardSpread: two simulators on the same agent and tasks (A: 1, 0 ->
// 0.5; B: 1, 1 -> 1.0; spread 0.5 to 1.0, not confounded); a domain where
// they met different agents is confounded; one with other task sets too;
// a missing reward is left out of the mean. Each telecom simulator has 20
// episodes (MinScored): 10 of each task.
func TestRewardSpread(t *testing.T) {
	nan := math.NaN()
	var rows []EpisodeReward
	for range 10 {
		rows = append(rows, EpisodeReward{"tau1", "telecom", "A", "gpt-5", "0", 1}, EpisodeReward{"tau1", "telecom", "A", "gpt-5", "1", 0},
			EpisodeReward{"tau1", "telecom", "B", "gpt-5", "0", 1}, EpisodeReward{"tau1", "telecom", "B", "gpt-5", "1", 1})
	}
	rows = append(rows, []EpisodeReward{
		{"tau2", "airline", "A", "x", "0", 1}, {"tau2", "airline", "B", "y", "0", 0}, {"tau2", "airline", "B", "y", "1", nan},
		{"tau2", "retail", "A", "x", "0", 1}, {"tau2", "retail", "B", "x", "1", 0},
	}...)
	got := RewardSpread(slices.Values(rows))
	if len(got) != 3 {
		t.Fatalf("%d domains, want 3", len(got))
	}
	tel := got[0]
	if tel.Benchmark != "tau1" || tel.Confounded || tel.Min != 0.5 || tel.Max != 1 || tel.Sims[0].MeanR != 0.5 || tel.Sims[1].N != 20 || len(tel.Small) != 0 {
		t.Errorf("tau1 telecom: %+v", tel)
	}
	air := got[1]
	if !air.Confounded || air.Reason != "the simulators met different agents (x, y)" || air.Sims[1].N != 1 || air.Sims[1].MeanR != 0 {
		t.Errorf("tau2 airline: %+v", air)
	}
	ret := got[2]
	if !ret.Confounded || ret.Reason != "the simulators ran different task sets" {
		t.Errorf("tau2 retail: %+v", ret)
	}
}

// TestRewardSpreadSmallSimulator: a simulator with fewer than MinCellN
// episodes in the domain (D: 4 of its 24) or MinScored over all (C: 1) is
// listed but does not set the domain's min or max (a one-episode file with
// R = 1 used to make the maximum 1.000).
func TestRewardSpreadSmallSimulator(t *testing.T) {
	var rows []EpisodeReward
	for i := range 20 {
		rows = append(rows, EpisodeReward{"tau2", "airline", "A", "x", "t", float64(i % 2)},
			EpisodeReward{"tau2", "retail", "D", "x", "t", 0})
	}
	for range 4 {
		rows = append(rows, EpisodeReward{"tau2", "airline", "D", "x", "t", 0})
	}
	rows = append(rows, EpisodeReward{"tau2", "airline", "C", "x", "t", 1})
	d := RewardSpread(slices.Values(rows))[0]
	if d.Max != 0.5 || d.Min != 0.5 || len(d.Small) != 2 || d.Small[0] != "C" || d.Small[1] != "D" || d.Sims[1].N != 1 || d.Sims[1].MeanR != 1 {
		t.Errorf("got %+v, want min = max = .5 with C and D small", d)
	}
}

// TestRewardTrials: user simulator U with agent g ran four tasks, with
// successes (R = 1) of 3/3, 1/3, 2/3 and 1/2 trials; a NaN reward is left
// out. By hand:
//
//	pass^1: per task 1, 1/3, 2/3, 1/2; mean 2.5/4 = 0.625; deviations
//	3/8, -7/24, 1/24, -1/8, squares (81 + 49 + 1 + 9)/576 = 140/576,
//	sd sqrt(140/1728) = .2846375, se .1423188, t(.975, 3) = 3.182446
//	(Student's t table), half-width .4529218: [0.172078, 1.077922],
//	clipped to [0.172078, 1].
//	pass^2: C(3,2)/C(3,2) = 1, C(1,2) = 0, C(2,2)/C(3,2) = 1/3,
//	C(1,2)/C(2,2) = 0: mean 1/3 over n = 4 tasks.
//	pass^3: the three 3-trial tasks: 1, 0, 0: mean 1/3, n = 3.
//
// A second simulator with one task gives pass^1 with no interval (one task).
func TestRewardTrials(t *testing.T) {
	var rows []TrialReward
	add := func(sim, task string, rs ...float64) {
		for i, r := range rs {
			rows = append(rows, TrialReward{Benchmark: "tau2", Domain: "airline", UserSim: sim, Agent: "g", TaskID: task, Trial: i, Reward: r})
		}
	}
	add("U", "a", 1, 1, 1)
	add("U", "b", 0, 1, 0)
	add("U", "c", 1, 1, 0)
	add("U", "d", 0, 1, math.NaN())
	add("V", "a", 1, 0)
	got := RewardTrials(slices.Values(rows), 1, 3)
	if len(got) != 2 || got[0].UserSim != "U" || got[0].Tasks != 4 || got[0].MaxTrials != 3 {
		t.Fatalf("rows %+v", got)
	}
	u := got[0]
	checkFloat(t, "pass^1", u.PassK[0].Value, 0.625, 1e-12)
	checkFloat(t, "pass^1 lo", u.PassCI[0].Lo, 0.172078, 1e-6)
	checkFloat(t, "pass^1 hi", u.PassCI[0].Hi, 1, 0)
	checkFloat(t, "pass^2", u.PassK[1].Value, 1.0/3, 1e-12)
	checkFloat(t, "pass^3", u.PassK[2].Value, 1.0/3, 1e-12)
	if u.PassK[1].Tasks != 4 || u.PassK[2].Tasks != 3 {
		t.Errorf("n of pass^2, pass^3: %d, %d; want 4, 3", u.PassK[1].Tasks, u.PassK[2].Tasks)
	}
	v := got[1]
	checkFloat(t, "V pass^1", v.PassK[0].Value, 0.5, 1e-12)
	if !math.IsNaN(v.PassCI[0].Lo) || v.PassK[2].Tasks != 0 {
		t.Errorf("V: %+v %+v, want no interval from one task and no task of 3 trials", v.PassCI[0], v.PassK[2])
	}
}
