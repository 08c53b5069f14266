package analysis

import (
	"math"
	"testing"
)

// TestRewardSpread: two simulators on the same agent and tasks (A: 1, 0 ->
// 0.5; B: 1, 1 -> 1.0; spread 0.5 to 1.0, not confounded); a domain where
// they met different agents is confounded; one with other task sets too;
// a missing reward is left out of the mean.
func TestRewardSpread(t *testing.T) {
	nan := math.NaN()
	rows := []EpisodeReward{
		{"tau1", "telecom", "A", "gpt-5", "0", 1}, {"tau1", "telecom", "A", "gpt-5", "1", 0},
		{"tau1", "telecom", "B", "gpt-5", "0", 1}, {"tau1", "telecom", "B", "gpt-5", "1", 1},
		{"tau2", "airline", "A", "x", "0", 1}, {"tau2", "airline", "B", "y", "0", 0}, {"tau2", "airline", "B", "y", "1", nan},
		{"tau2", "retail", "A", "x", "0", 1}, {"tau2", "retail", "B", "x", "1", 0},
	}
	got := RewardSpread(rows)
	if len(got) != 3 {
		t.Fatalf("%d domains, want 3", len(got))
	}
	tel := got[0]
	if tel.Benchmark != "tau1" || tel.Confounded || tel.Min != 0.5 || tel.Max != 1 || tel.Sims[0].MeanR != 0.5 || tel.Sims[1].N != 2 {
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
