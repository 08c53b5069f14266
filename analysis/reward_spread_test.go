package analysis

import (
	"math"
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
	got := RewardSpread(rows)
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
	d := RewardSpread(rows)[0]
	if d.Max != 0.5 || d.Min != 0.5 || len(d.Small) != 2 || d.Small[0] != "C" || d.Small[1] != "D" || d.Sims[1].N != 1 || d.Sims[1].MeanR != 1 {
		t.Errorf("got %+v, want min = max = .5 with C and D small", d)
	}
}
