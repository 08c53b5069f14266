package analysis

import (
	"math"
	"slices"
	"testing"

	"github.com/ub-bench/ub"
)

// ep builds a graded episode: app/fail are the applicable and failed
// counts of one family (index fam); reward -1 means unknown.
func ep(sim, dom, task string, reward float64, fam, app, fail int, probes ...string) ub.FidelityEpisode {
	e := ub.FidelityEpisode{ID: sim + dom + task, Simulator: sim, Agent: "agent", Domain: dom, Task: task, Reward: reward, Cost: math.NaN(), Probes: probes}
	if reward < 0 {
		e.Reward = math.NaN()
	}
	e.Applicable[fam], e.Failed[fam] = app, fail
	return e
}

func fnear(a, b float64) bool { return math.Abs(a-b) < 1e-9 || (math.IsNaN(a) && math.IsNaN(b)) }

func TestUFSBySimulator(t *testing.T) {
	a1 := ep("A", "airline", "1", 1, 0, 2, 0) // f = 1
	a1.Cost = 0.02
	a2 := ep("A", "airline", "2", 0, 1, 3, 1) // f = 0
	a2.Cost, a2.CostEstimated = 0.04, true
	eps := []ub.FidelityEpisode{
		a1, a2,
		ep("A", "airline", "3", 1, 2, 0, 0),       // nothing applies: excluded
		ep("A", "airline", "4", 1, 0, 1, 0, "P0"), // P0: excluded
		ep("A", "retail", "1", 1, 3, 1, 0),        // f = 1
		ep("B", "airline", "1", 1, 0, 1, 1),       // f = 0
	}
	got := UFSBySimulator(slices.Values(eps), 1)
	if len(got) != 2 || got[0].Simulator != "A" || got[1].Simulator != "B" {
		t.Fatalf("simulators %+v", got)
	}
	a := got[0]
	// Hand: airline f = (1, 0) -> 0.5; retail (1) -> 1; unweighted mean
	// 0.75 (the episode-weighted mean would be 2/3). Mean R: airline
	// (1 + 0)/2 = 0.5, retail 1 -> 0.75. Cost: (0.02 + 0.04)/2 = 0.03 over
	// the 2 episodes with a known cost, one estimated.
	if !fnear(a.UFS, 0.75) || !fnear(a.MeanR, 0.75) || a.Scored != 3 || a.Excluded != 2 || !fnear(a.Cost, 0.03) || a.CostKnown != 2 || !a.CostEstimated {
		t.Errorf("A = %+v", a)
	}
	if d := a.Domains[0]; d.Domain != "airline" || d.Scored != 2 || d.ExcludedP0 != 1 || d.ExcludedNA != 1 || !fnear(d.UFS, 0.5) || d.Successes != 1 {
		t.Errorf("A airline = %+v", d)
	}
	if b := got[1]; !fnear(b.UFS, 0) || !math.IsNaN(b.Cost) {
		t.Errorf("B = %+v (cost unknown must be NaN, never 0)", b)
	}
}

func TestLabelSimulators(t *testing.T) {
	eps := []ub.FidelityEpisode{{Simulator: "u", Agent: "x"}, {Simulator: "u", Agent: "y"}, {Simulator: "v", Agent: "x"}}
	LabelSimulators(eps)
	if eps[0].Simulator != "u / x" || eps[1].Simulator != "u / y" || eps[2].Simulator != "v" {
		t.Errorf("%+v", eps)
	}
}

func TestFrontier(t *testing.T) {
	pts := []FrontierPoint{
		{"A", 1, 0.80},
		{"B", 2, 0.85},
		{"B2", 2, 0.85}, // B's twin: neither dominates the other; B wins ties by name
		{"C", 3, 0.84},  // dominated: B is cheaper and more faithful
		{"D", 1, 0.70},  // dominated: A costs the same and is more faithful
		{"E", math.NaN(), 0.99},
	}
	r := Frontier(pts, []float64{0.75, 0.84, 0.9})
	wantDom := map[string]string{"C": "B", "D": "A"}
	for i, p := range r.Points {
		if by, ok := wantDom[p.Simulator]; r.Dominated[i] != ok || r.DominatedBy[i] != by {
			t.Errorf("%s dominated=%v by %q, want %v by %q", p.Simulator, r.Dominated[i], r.DominatedBy[i], ok, by)
		}
	}
	if got := r.Efficient; len(got) != 3 || got[0] != "A" || got[1] != "B" || got[2] != "B2" {
		t.Errorf("efficient %v", got)
	}
	// q .75: A, B, B2, C feasible; A cheapest. q .84: B, B2, C; B (cost 2,
	// tie with B2 broken by name). q .9: none (E's cost is unknown).
	want := []struct {
		sim  string
		feas int
	}{{"A", 4}, {"B", 3}, {"", 0}}
	for i, w := range want {
		if c := r.Choices[i]; c.Simulator != w.sim || c.Feasible != w.feas {
			t.Errorf("q=%v: %+v, want %s with %d feasible", c.Q, c, w.sim, w.feas)
		}
	}
	// Equal cost, higher UFS wins before the name.
	r = Frontier([]FrontierPoint{{"a", 1, 0.8}, {"b", 1, 0.9}}, []float64{0.5})
	if r.Choices[0].Simulator != "b" {
		t.Errorf("tie on cost: %+v", r.Choices[0])
	}
	// Seed 002: Gemma-31B at 0.0175 $/sim x 1000 prompts x 64 rollouts is
	// about 1.1k $ per epoch (1120).
	if got := EpochCost(1000, 64, 0.0175); !fnear(got, 1120) {
		t.Errorf("epoch cost %v", got)
	}
}

func TestFamilyEffects(t *testing.T) {
	var eps []ub.FidelityEpisode
	add := func(sim string, n, pass, fail int) { // n episodes, pass succeed, goal_deviation failed `fail` times
		for i := 0; i < n; i++ {
			r := 0.0
			if i < pass {
				r = 1
			}
			eps = append(eps, ep(sim, "airline", "t", r, 1, 1, fail))
		}
	}
	add("A", 5, 2, 1) // present: 2/5
	add("A", 5, 4, 0) // absent: 4/5 -> effect -0.4
	add("B", 5, 5, 1) // present 5/5
	add("B", 5, 4, 0) // absent 4/5 -> +0.2
	add("C", 4, 0, 1) // 4 present only: no cell
	add("C", 9, 9, 0)
	got := FamilyEffects(slices.Values(eps), 1)
	g := got[1]
	if g.Family != "goal_deviation" || len(g.Cells) != 2 {
		t.Fatalf("%+v", g)
	}
	// Hand: mean (-0.4 + 0.2)/2 = -0.1, median of two = -0.1; the +0.2
	// cell opposes the mean: 1 sign change. Present in 14 of 33 scored.
	if !fnear(g.Mean, -0.1) || !fnear(g.Median, -0.1) || g.SignChanges != 1 || g.Present != 14 || !fnear(g.Frequency, 14.0/33) || g.Failures != 14 {
		t.Errorf("goal_deviation = %+v", g)
	}
	if d := got[0]; d.Present != 0 || len(d.Cells) != 0 || !math.IsNaN(d.Mean) {
		t.Errorf("disclosure = %+v", d)
	}
}

func TestRewardFidelity(t *testing.T) {
	eps := []ub.FidelityEpisode{
		ep("A", "x", "1", 1, 0, 1, 1), // success, f 0
		ep("A", "x", "2", 1, 0, 1, 0), // success, f 1
		ep("A", "y", "1", 0, 0, 1, 1), // fail, f 0
		ep("A", "y", "2", 1, 0, 1, 1), // success, f 0
	}
	got := RewardFidelity(slices.Values(eps), 1)
	// Rows: A/x, A/y, A/"", ""/"".
	if len(got) != 4 || got[2].Domain != "" || got[3].Simulator != "" {
		t.Fatalf("%+v", got)
	}
	// Hand: 3 successes, 2 with f = 0 -> 2/3; of 4 episodes 2 -> 0.5.
	if r := got[2]; r.Successes != 3 || !fnear(r.ShareOfSuccesses, 2.0/3) || !fnear(r.ShareOfAll, 0.5) || r.FailUnfaithful != 1 {
		t.Errorf("A = %+v", r)
	}
	if r := got[0]; !fnear(r.ShareOfSuccesses, 0.5) {
		t.Errorf("A/x = %+v", r)
	}
}

func TestDisclosureRerank(t *testing.T) {
	// Per simulator, one episode per (family split): d = disclosure
	// episode, n = non-disclosure episode (goal_deviation).
	mk := func(sim string, dfail, nfail [2]int) []ub.FidelityEpisode {
		var out []ub.FidelityEpisode
		for i := 0; i < 2; i++ {
			e := ep(sim, "x", string(rune('a'+i)), 1, 0, 1, dfail[i])
			e.Applicable[1], e.Failed[1] = 1, nfail[i]
			out = append(out, e)
		}
		return out
	}
	var eps []ub.FidelityEpisode
	eps = append(eps, mk("A", [2]int{0, 0}, [2]int{1, 1})...) // disc 1.0, non 0.0, all 0.0
	eps = append(eps, mk("B", [2]int{1, 0}, [2]int{0, 0})...) // disc 0.5, non 1.0, all 0.5
	eps = append(eps, mk("C", [2]int{1, 1}, [2]int{0, 1})...) // disc 0.0, non 0.5, all 0.0
	r, err := DisclosureRerank(slices.Values(eps), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Ranks (1 best, ties by name): all A=2 B=1 C=3 (A, C tie at 0: A
	// first); non B=1 C=2 A=3; disc A=1 B=2 C=3.
	want := map[string][3]int{"A": {2, 3, 1}, "B": {1, 1, 2}, "C": {3, 2, 3}}
	for _, row := range r.Rows {
		if w := want[row.Simulator]; [3]int{row.RankAll, row.RankNon, row.RankDisc} != w {
			t.Errorf("%s ranks %d %d %d, want %v", row.Simulator, row.RankAll, row.RankNon, row.RankDisc, w)
		}
	}
	// Spearman by hand. disc (1, .5, 0) -> ranks (3, 2, 1); non (0, 1, .5)
	// -> (1, 3, 2); d = (2, -1, -1), sum d^2 = 6; rho = 1 - 6*6/(3*8) =
	// -0.5. all (0, .5, 0) -> ranks (1.5, 3, 1.5) with a tie, so rho is the
	// Pearson r of (1.5, 3, 1.5) and (1, 3, 2): deviations (-.5, 1, -.5)
	// and (-1, 1, 0): sum xy 1.5, sxx 1.5, syy 2 -> 1.5/sqrt(3) = 0.8660.
	if !fnear(r.RhoDiscNon.R, -0.5) || math.Abs(r.RhoAllNon.R-1.5/math.Sqrt(3)) > 1e-9 {
		t.Errorf("rho disc/non %v, all/non %v", r.RhoDiscNon.R, r.RhoAllNon.R)
	}
}

func TestAgentEffort(t *testing.T) {
	mk := func(sim, task string, reward float64, disc, tools, questions, turns int) ub.FidelityEpisode {
		e := ep(sim, "x", task, reward, 0, 1, disc)
		e.AgentToolCalls, e.AgentQuestions, e.AgentTurns = tools, questions, turns
		return e
	}
	eps := []ub.FidelityEpisode{
		mk("A", "1", 1, 1, 2, 0, 2), mk("A", "2", 1, 1, 4, 1, 2), mk("A", "3", 1, 0, 5, 1, 2), mk("A", "4", 1, 0, 7, 2, 2),
		mk("B", "1", 1, 0, 3, 1, 4), mk("B", "2", 0, 1, 9, 9, 4), mk("B", "3", 1, 0, 3, 1, 4), mk("B", "4", 1, 1, 4, 3, 4),
		mk("C", "1", 1, 0, 1, 0, 6), mk("C", "2", 1, 0, 1, 0, 6), mk("C", "3", 1, 0, 1, 0, 6), mk("C", "4", 1, 0, 1, 0, 6),
		mk("C", "5", 1, 0, 1, 0, 100), // only C ran task 5: not common
	}
	r, err := AgentEffort(slices.Values(eps), 1)
	if err != nil {
		t.Fatal(err)
	}
	// A: present tool calls (2+4)/2 = 3, absent (5+7)/2 = 6 -> -3;
	// questions 0.5 - 1.5 = -1. B (successes only): present 4, absent 3 ->
	// +1; questions 3 - 1 = +2. C: no disclosure, not compared.
	a, b := r.Rows[0], r.Rows[1]
	if !fnear(a.ToolCallDiff, -3) || !fnear(a.QuestionDiff, -1) || !fnear(b.ToolCallDiff, 1) || !fnear(b.QuestionDiff, 2) {
		t.Errorf("rows %+v", r.Rows)
	}
	if r.Compared != 2 || !fnear(r.MeanToolCallDiff, -1) || r.ToolCallNegative != 1 || !fnear(r.MeanQuestionDiff, 0.5) || r.QuestionNegative != 1 {
		t.Errorf("summary %+v", r)
	}
	// Common tasks 1-4. Turns (2, 4, 6); UFS on them: A 0.5, B 0.5, C 1 ->
	// r = 1 / sqrt(8 * 1/6) = 0.8660 (deviations (-2, 0, 2) and (-1/6,
	// -1/6, 1/3)). R: A 1, B 0.75, C 1 -> deviations (1/12, -1/6, 1/12):
	// sum xy = -1/6 + 1/6 = 0 -> r = 0.
	if r.CommonTasks != 4 || math.Abs(r.TurnsUFS.R-math.Sqrt(6.0/8)) > 1e-9 || math.Abs(r.TurnsR.R) > 1e-9 {
		t.Errorf("common %d, turns-UFS %v, turns-R %v", r.CommonTasks, r.TurnsUFS.R, r.TurnsR.R)
	}
}

func TestProbeOverlap(t *testing.T) {
	eps := []ub.FidelityEpisode{
		ep("A", "x", "1", 1, 0, 1, 0, "P2"), // fires, all pass
		ep("A", "x", "2", 1, 0, 1, 0),
		ep("B", "x", "1", 1, 0, 1, 0),
		ep("B", "x", "2", 1, 0, 1, 1, "P2"), // fires, already failing
	}
	rows, changed := ProbeOverlap(slices.Values(eps), 1)
	// Hand: A UFS 1 -> folded 0.5; B 0.5 -> 0.5. Ranks: A 1, B 2 before;
	// after a tie at 0.5, broken by name: A 1, B 2: unchanged.
	if len(rows) != 2 || rows[0].Fired != 1 || rows[0].FiredAllPass != 1 || !fnear(rows[0].Folded, 0.5) || rows[1].FiredAllPass != 0 || changed["P2"] {
		t.Errorf("%+v %v", rows, changed)
	}
}

// TestGraderAgreement: the same verdicts give the same agreement whether
// each pair is its own VerdictPair or the pairs of an episode, family and
// verdicts are counted in one (N), as the workspace hands them over.
func TestGraderAgreement(t *testing.T) {
	for _, counted := range []bool{false, true} {
		var pairs []ub.VerdictPair
		add := func(ep, fam, a, b string, n int) {
			if counted {
				pairs = append(pairs, ub.VerdictPair{SimulationID: ep, Family: fam, A: a, B: b, N: n})
				return
			}
			for i := 0; i < n; i++ {
				pairs = append(pairs, ub.VerdictPair{SimulationID: ep, Family: fam, A: a, B: b})
			}
		}
		add("e1", "disclosure", "pass", "pass", 3)
		add("e2", "disclosure", "fail", "fail", 1)
		add("e3", "disclosure", "pass", "fail", 1)
		fams, same, n := GraderAgreement(pairs)
		// Hand (Cohen 1960): p_o = 4/5; A: pass 4/5, fail 1/5; B: pass 3/5,
		// fail 2/5; p_e = .8*.6 + .2*.4 = .56; kappa = .24/.44 = 0.54545.
		if len(fams) != 2 || fams[0].Family != "disclosure" || !fnear(fams[0].Kappa.Kappa, 0.24/0.44) || fams[0].Equal != 4 ||
			fams[0].N != 5 || fams[1].N != 5 {
			t.Errorf("counted %v: %+v", counted, fams)
		}
		// e1 both f 1, e2 both f 0, e3 A 1 / B 0: 2 of 3 episodes agree.
		if same != 2 || n != 3 {
			t.Errorf("counted %v: same f %d of %d", counted, same, n)
		}
	}
}
