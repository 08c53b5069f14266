package reports

import (
	"strings"
	"testing"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

func testQuality() *JudgeQuality {
	return &JudgeQuality{Judge: "builtin", Version: "builtin/1+abc", Protocol: "leave-one-repository-out", Repos: 16,
		All:    JudgeKappa{N: 700, Kappa: 0.7265, Lo: 0.6822, Hi: 0.7707},
		Unseen: JudgeKappa{N: 210, Kappa: 0.6892, Lo: 0.6042, Hi: 0.7741},
		ECE:    0.039,
		Coverage: []ub.CoveragePoint{{Coverage: 1, N: 700, Accuracy: 0.826, Kappa: 0.726, Lo: 0.682, Hi: 0.771}, {Coverage: 0.9, N: 630, Accuracy: 0.852, Kappa: 0.767, Lo: 0.723, Hi: 0.811},
			{Coverage: 0.8, N: 560, Accuracy: 0.877, Kappa: 0.805, Lo: 0.762, Hi: 0.848}, {Coverage: 0.7, N: 490, Accuracy: 0.904, Kappa: 0.846, Lo: 0.804, Hi: 0.888}, {Coverage: 0.5, N: 350, Accuracy: 0.949, Kappa: 0.916, Lo: 0.878, Hi: 0.954}},
	}
}

// TestJudgeMethods: the methods line states the built-in judge's measured
// agreement, a cascade's shares (30 of 100 points by the model judge: 70%
// kept, read off the curve at 0.7) and "unmeasured" for any other judge.
func TestJudgeMethods(t *testing.T) {
	tests := []struct {
		judge    string
		deciders []Decider
		want     []string
	}{
		{"builtin", []Decider{{"builtin", "point", 100}},
			[]string{"`builtin` agrees at kappa 0.727 (95% CI 0.682 to 0.771, n = 700)", "kappa 0.689 (95% CI 0.604 to 0.774, n = 210) on the repositories"}},
		{"builtin+gpt", []Decider{{"builtin", "point", 70}, {"gpt", "point", 30}, {"gpt", "generation", 5}},
			[]string{"`builtin+gpt` is a cascade; real messages labelled by `builtin` 70 (70%), `gpt` 30 (30%)", "most confident 70% agree with careful labels at kappa 0.846 (95% CI 0.804 to 0.888), accuracy 0.904"}},
		{"gpt", []Decider{{"gpt", "point", 100}}, []string{"unmeasured for `gpt`"}},
	}
	for _, tt := range tests {
		r := Prepare(Input{Study: &queries.Study{Judge: tt.judge}, JudgeQuality: testQuality(), Deciders: tt.deciders})
		var b strings.Builder
		r.judgeMethods(&b)
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: %q lacks %q", tt.judge, b.String(), w)
			}
		}
	}
	r := Prepare(Input{Study: &queries.Study{Judge: "builtin"}})
	var b strings.Builder
	r.judgeMethods(&b)
	if !strings.Contains(b.String(), "unmeasured for `builtin`") {
		t.Errorf("no measurement: %q", b.String())
	}
	if _, err := r.judgeCoverage(); err == nil {
		t.Error("judge-coverage drawn without a measurement")
	}
}

// TestReliabilitySkipsTinyBins: a bin of one label (share right 1.0) is
// not drawn as a spike; bins of minBinN labels or more are.
func TestReliabilitySkipsTinyBins(t *testing.T) {
	bins := []CalibrationBin{{From: 0.2, To: 0.3, N: 1, Confidence: 0.25, Accuracy: 1}, {From: 0.5, To: 0.6, N: 5, Confidence: 0.55, Accuracy: 0.6}, {From: 0.9, To: 1, N: 40, Confidence: 0.95, Accuracy: 0.95}}
	got := drawnBins(bins)
	if len(got) != 2 || got[0].N != 5 || got[1].N != 40 {
		t.Errorf("drawnBins = %+v, want the bins of 5 and 40 labels", got)
	}
}
