package reports

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub"
	"gonum.org/v1/plot/plotter"
)

// ufsTestInput is a small graded set with every UFS figure's data: three
// simulators on two domains, 12 tasks, a disclosure and a goal-deviation
// failure pattern, and two graders.
func ufsTestInput() FidelityInput {
	var eps []ub.FidelityEpisode
	var pairs []ub.VerdictPair
	sims := []struct {
		name string
		cost float64
	}{{"a", 0.01}, {"b", 0.02}, {"c", 0.03}}
	for si, s := range sims {
		for _, dom := range []string{"x", "y"} {
			for task := 0; task < 12; task++ {
				e := ub.FidelityEpisode{ID: s.name + dom + string(rune('a'+task)), Simulator: s.name, Agent: "ag", Domain: dom,
					Task: string(rune('a' + task)), Cost: s.cost, Reward: float64((task + si) % 2), AgentTurns: 4 + task%3 + si,
					AgentToolCalls: 3 + task%4, AgentQuestions: task % 2}
				e.Applicable = [4]int{1, 1, 1, 1}
				if task%(si+2) == 0 {
					e.Failed[0] = 1
				}
				if task%(5+si) == 1 {
					e.Failed[1] = 1
					e.Reward = 0
				}
				if task == 3 {
					e.Probes = []string{"P1"}
				}
				eps = append(eps, e)
				if si == 0 && dom == "x" && task < 4 {
					v := "pass"
					if e.Failed[0] > 0 {
						v = "fail"
					}
					pairs = append(pairs, ub.VerdictPair{SimulationID: e.ID, Family: "disclosure", A: v, B: "pass"})
				}
			}
		}
	}
	return FidelityInput{Grader: "g1", Episodes: eps, SecondGrader: "g2", Pairs: pairs, Qs: []float64{0.5, 0.7}}
}

// TestUFSFiguresByteIdentical: every UFS figure is drawn from the hand-made
// set, twice byte for byte the same, and the section holds its tables.
func TestUFSFiguresByteIdentical(t *testing.T) {
	t.Parallel()
	r := Prepare(Input{})
	r.SetFidelity(ufsTestInput())
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if _, err := r.WriteAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range figuresOf(StudyFidelity, "probe-rates", "reward-range") {
		for _, ext := range []string{".svg", ".png", ".csv"} {
			x, err := os.ReadFile(filepath.Join(a, f.name+ext))
			if err != nil {
				t.Fatalf("%s%s: %v", f.name, ext, err)
			}
			y, _ := os.ReadFile(filepath.Join(b, f.name+ext))
			if string(x) != string(y) {
				t.Errorf("%s%s differs between runs", f.name, ext)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(a, "report.md"))
	for _, w := range []string{"## User fidelity score (UFS)", "### Table 1: summary per simulator", "### Frontier choice and epoch cost", "### Probe overlap", "### Agreement between graders\n\nGraders `g1` and `g2`", "### Methods (user fidelity)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	// a: disclosure fails on even tasks (0, 2, ..., 10), goal deviation
	// on tasks with task % 5 = 1 (1, 6, 11; 6 is even): 8 of 12
	// unfaithful, UFS 4/12 in each domain.
	us, _, _ := r.FidelityTables()
	if math.Abs(us[0].UFS-4.0/12) > 1e-9 {
		t.Errorf("UFS of a = %v, want 4/12", us[0].UFS)
	}
}

// TestUFSSmallSampleRule: a fourth simulator with 3 scored episodes is in
// Table 1 with its n, named by the note, and left out of the re-rank, the
// agent-effort correlations and the pairwise tests; the section shows the
// frontier's choice stability and the pairwise table.
func TestUFSSmallSampleRule(t *testing.T) {
	in := ufsTestInput()
	for task := range 3 {
		e := ub.FidelityEpisode{ID: "tiny" + string(rune('a'+task)), Simulator: "tiny", Agent: "ag", Domain: "x",
			Task: string(rune('a' + task)), Cost: 0.001, Reward: 1, AgentTurns: 3}
		e.Applicable = [4]int{1, 1, 1, 1}
		in.Episodes = append(in.Episodes, e)
	}
	r := Prepare(Input{})
	r.SetFidelity(in)
	fd := r.fid
	if len(fd.small) != 1 || fd.small[0] != "tiny" || fd.smallN[0] != 3 {
		t.Fatalf("small = %v %v", fd.small, fd.smallN)
	}
	for _, x := range fd.rerank.Rows {
		if x.Simulator == "tiny" {
			t.Error("tiny is in the re-rank")
		}
	}
	if fd.rerank.RhoDiscNon.N != 3 {
		t.Errorf("Spearman over %d simulators, want 3", fd.rerank.RhoDiscNon.N)
	}
	for _, x := range fd.effort.Rows {
		if x.Simulator == "tiny" {
			t.Error("tiny is in agent effort")
		}
	}
	var b strings.Builder
	r.fidelitySection(&b, nil)
	md := b.String()
	for _, w := range []string{
		"| tiny | 3 | 0 |",
		"Fewer than 20 scored episodes, shown but left out of the cross-simulator statistics",
		"tiny (3 scored)",
		"| a | tiny | 3 | 3 |",
		"not tested: fewer than 20 scored episodes",
		"choice stability",
		"### Paired comparisons of simulators",
		"### Trials: pass^k and UFS^k",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("section lacks %q", w)
		}
	}
	// a and b are tested (same agent): a row with a McNemar p value.
	found := false
	for _, p := range fd.pairs {
		if p.A == "a" && p.B == "b" && p.Reason == "" && !p.Confounded && !math.IsNaN(p.F.P) && !math.IsNaN(p.FHolm) {
			found = true
		}
	}
	if !found {
		t.Errorf("a-b not tested: %+v", fd.pairs)
	}
}

// TestShortNames: the figure's labels drop the prefix and suffix every name
// shares, cut at a separator; names that would collide or vanish stay whole.
func TestShortNames(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"user_simulator:gpt-4.1-mini@t1", "user_simulator:gemma-4-31b@t1"}, []string{"gpt-4.1-mini", "gemma-4-31b"}},
		{[]string{"sim-a", "sim-b"}, []string{"a", "b"}},
		{[]string{"abc", "abd"}, []string{"abc", "abd"}}, // no separator: kept
		{[]string{"x:a", "x:a"}, []string{"x:a", "x:a"}}, // would collide
		{[]string{"only:one"}, []string{"only:one"}},
	} {
		if got := shortNames(c.in); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("shortNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSpreadLabels: of two points at the same height and cost, the first
// label goes 9 points right of and 9 below its point, the second to the
// left at that height (the right is taken); a point far to the left keeps
// its own place; a point with a line 5 points below it gets its label 3
// points above it instead (the band below, 12 to 1 points under the point,
// holds the line). Hand computation: x spans log10 5e-5 = -4.301 to 0 over
// 400 points, 0.010753 decades a point; y spans 1 over 260 points.
func TestSpreadLabels(t *testing.T) {
	pts := plotter.XYs{{X: 0.01, Y: 0.8}, {X: 0.01, Y: 0.8}, {X: 0.0001, Y: 0.8}, {X: 0.01, Y: 0.5}}
	dec := -math.Log10(0.00005) / 400
	got, left := spreadLabels(pts, nil, []string{"aaaa", "bbbb", "c", "d"}, []float64{0.5 - 5.0/260}, 0.00005, 1, 0, 1)
	want := plotter.XYs{
		{X: math.Pow(10, -2+9*dec), Y: 0.8 - 9.0/260},
		{X: math.Pow(10, -2-9*dec), Y: 0.8 - 9.0/260},
		{X: math.Pow(10, -4+9*dec), Y: 0.8 - 9.0/260},
		{X: math.Pow(10, -2+9*dec), Y: 0.5 + 3.0/260},
	}
	wantLeft := []bool{false, true, false, false}
	for i := range want {
		if math.Abs(got[i].X-want[i].X) > 1e-9 || math.Abs(got[i].Y-want[i].Y) > 1e-12 || left[i] != wantLeft[i] {
			t.Errorf("label %d at %v (left %v), want %v (left %v)", i, got[i], left[i], want[i], wantLeft[i])
		}
	}
}
