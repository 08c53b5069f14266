package reports

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

func TestAnchorScoresSumsAtTheAnchor(t *testing.T) {
	// Two rows of d1 at the anchor (N = 14, K = 0) add up; the row at
	// N = 4 and the unlabelled-only row (no moments) are left out.
	st := &queries.Study{
		Settings: []queries.StudySetting{{Simulator: "s", Condition: queries.CondNoProfile, N: 14, K: 0, Generations: 5}},
		Scores: []queries.StudyScores{
			{Simulator: "s", Condition: queries.CondNoProfile, N: 14, Developer: "d1", Hits: 1, Moments: 2},
			{Simulator: "s", Condition: queries.CondNoProfile, N: 14, Developer: "d1", Hits: 2, Moments: 2},
			{Simulator: "s", Condition: queries.CondNoProfile, N: 4, Developer: "d1", Hits: 0, Moments: 9},
			{Simulator: "s", Condition: queries.CondNoProfile, N: 14, Developer: "d2", Unlabelled: 3},
			{Simulator: "s", Condition: queries.CondTerse, N: 14, Developer: "d2", Hits: 1, Moments: 1},
		},
	}
	got := AnchorScores(st, "s", queries.CondNoProfile)
	if len(got) != 1 || got[0].Developer != "d1" || got[0].Hits != 3 || got[0].N != 4 || got[0].Accuracy != 0.75 {
		t.Errorf("AnchorScores = %+v, want d1 3 of 4", got)
	}
	set := AnchorSettings(st)
	if strings.Join(set["s"], ",") != "noprofile,terse" || len(set) != 1 {
		t.Errorf("AnchorSettings = %v", set)
	}
	for _, c := range []struct{ name, cond, sim, gotCond string }{
		{"s", "", "s", queries.CondNoProfile},
		{"s@terse", "", "s", queries.CondTerse},
		{"s", queries.CondTerse, "s", queries.CondTerse},
	} {
		side, ok, err := ResolveUserBench(set, c.name, c.cond)
		if !ok || err != nil || side.Simulator != c.sim || side.Condition != c.gotCond {
			t.Errorf("ResolveUserBench(%q, %q) = %+v, %v, %v", c.name, c.cond, side, ok, err)
		}
	}
	if _, ok, err := ResolveUserBench(set, "s@profile", ""); !ok || err == nil || !strings.Contains(err.Error(), "(it has noprofile, terse)") {
		t.Errorf("s@profile: ok %v, err %v; want known, with the conditions it has", ok, err)
	}
	if _, ok, _ := ResolveUserBench(set, "t@profile", ""); ok {
		t.Error("t@profile: t is no simulator")
	}
	if _, ok, err := ResolveUserBench(set, "s", queries.CondProfile); !ok || err == nil {
		t.Errorf("s in profile: ok %v, err %v; want known, with an error", ok, err)
	}
}

func TestResolveFidelityByModelPart(t *testing.T) {
	sims := map[string]bool{"user_simulator:a@t1": true, "user_simulator:b@t1": true, "user_simulator:b@t2": true}
	if got, ok := ResolveFidelity(sims, "a"); !ok || got != "user_simulator:a@t1" {
		t.Errorf("a: %q, %v", got, ok)
	}
	if _, ok := ResolveFidelity(sims, "b"); ok {
		t.Error("b names two labels: want no match")
	}
	if got, ok := ResolveFidelity(sims, "user_simulator:b@t2"); !ok || got != "user_simulator:b@t2" {
		t.Errorf("full label: %q, %v", got, ok)
	}
}

func TestComparisonNotJudgedBelowTheRule(t *testing.T) {
	// Nine developers, a difference confidently below -margin: shown, but
	// below MinDevelopers, so not judged and not a regression.
	nan := math.NaN()
	m := 0.01
	c := Comparison{Study: StudyUserBench, A: Compared{"a", "noprofile"}, B: Compared{"b", "noprofile"}, Scorer: "j", N: 14,
		Accuracy: &analysis.AccuracyPair{Developers: 9, Small: true,
			A: analysis.BootInterval{Estimate: 0.5, Lo: 0.4, Hi: 0.6}, B: analysis.BootInterval{Estimate: 0.3, Lo: nan, Hi: nan},
			Diff: analysis.BootInterval{Estimate: -0.2, Lo: -0.3, Hi: -0.1}, P: nan},
		Boot: analysis.BootstrapOptions{}.Resolved(), Margin: &m}
	if c.Judged() || c.Regressed() {
		t.Errorf("judged %v, regressed %v; want neither", c.Judged(), c.Regressed())
	}
	txt := c.Text()
	if strings.Contains(txt, "data: synthetic") {
		t.Errorf("the user's own data marked synthetic:\n%s", txt)
	}
	for _, want := range []string{"regression check: not judged", "fewer than 10 common developers", "sign-flip p = n/a", "0.300     "} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	b, err := json.Marshal(c.JSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"p":null`, `"b":{"estimate":0.3,"lo":null,"hi":null}`, `"judged":false`, `"regression_check":{"margin":0.01,"regressed":false}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
	// The same numbers on ten developers are a regression.
	c.Accuracy.Developers, c.Accuracy.Small = 10, false
	if !c.Regressed() || !strings.Contains(c.Verdict(), "upper bound of B - A -0.100 < -0.010") {
		t.Errorf("ten developers: regressed %v, %q", c.Regressed(), c.Verdict())
	}
}

// TestComparisonNoCommonTask: two simulators that share no task met no
// agent in common: the summary says so through its counts and note, and
// names no agent ("same agent " with no name was printed).
func TestComparisonNoCommonTask(t *testing.T) {
	eps := []ub.FidelityEpisode{
		{ID: "a1", Simulator: "sa", Agent: "ag", Domain: "d", Task: "1"},
		{ID: "b1", Simulator: "sb", Agent: "ag", Domain: "d", Task: "2"},
	}
	f := analysis.CompareFidelity(eps, "sa", "sb", 1, analysis.BootstrapOptions{})
	c := Comparison{Study: StudyFidelity, A: Compared{"sa", ""}, B: Compared{"sb", ""}, Scorer: "g", Fidelity: &f,
		Boot: analysis.BootstrapOptions{}.Resolved()}
	txt := c.Text()
	if strings.Contains(txt, "same agent") || strings.Contains(txt, "CONFOUNDED") {
		t.Errorf("an agent clause with no agent:\n%s", txt)
	}
	for _, want := range []string{"common tasks 0, paired episodes 0\n", "note: no common task"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
}
