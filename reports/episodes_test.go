package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

func fptr(x float64) *float64 { return &x }

// fidelityInput is a small hand-made workspace: two simulators on the same
// agent and tasks in one domain (A: R 1, 0; B: R 1, 1), one of A's episodes
// flagged P0, and probe rates P1 1/2 for A, 0/2 for B.
func fidelityInput() Input {
	ep := &queries.EpisodeReport{
		Episodes: []queries.EpisodeRow{
			{SimulationID: "a1", Format: "tau1", Domain: "telecom", UserSim: "A", Agent: "g", TaskID: "0", Reward: fptr(1), SourceFile: "a.json", TaskMismatch: true},
			{SimulationID: "a2", Format: "tau1", Domain: "telecom", UserSim: "A", Agent: "g", TaskID: "1", Reward: fptr(0), SourceFile: "a.json", UserCost: fptr(0.02)},
			{SimulationID: "b1", Format: "tau1", Domain: "telecom", UserSim: "B", Agent: "g", TaskID: "0", Reward: fptr(1), SourceFile: "b.json"},
			{SimulationID: "b2", Format: "tau1", Domain: "telecom", UserSim: "B", Agent: "g", TaskID: "1", Reward: fptr(1), SourceFile: "b.json"},
		},
		Rates: []queries.ProbeRate{{UserSim: "A", Probe: "P1", N: 2, Hits: 1}, {UserSim: "B", Probe: "P1", N: 2, Hits: 0}},
	}
	return Input{Episodes: ep}
}

// TestProbeRatesWilson: 1 of 2 has the 95% Wilson interval 0.095 to 0.905
// (centre (1 + 1.96^2/2) / (2 + 1.96^2) = 0.5, half-width
// 1.96 sqrt(0.25*2 + 1.96^2/4) / (2 + 1.96^2) = 0.4055); 0 of 2 has 0 to
// 1.96^2 / (2 + 1.96^2) = 0.658.
func TestProbeRatesWilson(t *testing.T) {
	f, err := Prepare(fidelityInput()).probeRates()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"A", "P1", "2", "1", "0.500", "0.095", "0.905"}, {"B", "P1", "2", "0", "0.000", "0.000", "0.658"}}
	if len(f.table.rows) != 2 {
		t.Fatalf("rows %v", f.table.rows)
	}
	for i, w := range want {
		if strings.Join(f.table.rows[i], ",") != strings.Join(w, ",") {
			t.Errorf("row %d = %v, want %v", i, f.table.rows[i], w)
		}
	}
}

// TestRewardRangeAndSection: A (0.5) and B (1.0) have 2 episodes each,
// below the small-sample rule (analysis.MinScored): both are drawn with
// their n but set no range, and the caption names them; the section names the P0 flag and the unknown costs; both
// figures come out byte-identical twice.
func TestRewardRangeAndSection(t *testing.T) {
	r := Prepare(fidelityInput())
	f, err := r.rewardRange()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.table.rows[0], ","); got != "tau-bench v1,telecom,A,2,0.500,false,n/a,n/a,false,g" {
		t.Errorf("row 0 = %s", got)
	}
	if !strings.Contains(f.caption, "Fewer than 20 episodes, drawn but not in the range: A in tau-bench v1 telecom, B in tau-bench v1 telecom.") ||
		strings.Contains(f.caption, "R 0.500 to 1.000") {
		t.Errorf("caption %q", f.caption)
	}
	var b strings.Builder
	r.userFidelity(&b)
	md := b.String()
	for _, s := range []string{"### Episodes", "4 episodes from 2 result files. 1 episodes state another customer's identity",
		"| a.json | tau-bench v1 | telecom | A | g | 2 | 0.500 | 1 | at least $0.0200 (v1 records the last turn's cost) (1 of 2 known) |", "| b.json | tau-bench v1 | telecom | B | g | 2 | 1.000 | 0 | unknown |"} {
		if !strings.Contains(md, s) {
			t.Errorf("section lacks %q:\n%s", s, md)
		}
	}
	if Prepare(Input{}).userFidelity(&b); strings.Count(b.String(), "### Episodes") != 1 {
		t.Error("a workspace without episodes got a User fidelity section")
	}
	d1, d2 := t.TempDir(), t.TempDir()
	for _, d := range []string{d1, d2} {
		for _, name := range []string{"probe-rates", "reward-range"} {
			if _, err := Prepare(fidelityInput()).WriteFigure(d, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, name := range []string{"probe-rates.svg", "probe-rates.png", "probe-rates.csv", "reward-range.svg", "reward-range.png", "reward-range.csv"} {
		a, err1 := os.ReadFile(filepath.Join(d1, name))
		b, err2 := os.ReadFile(filepath.Join(d2, name))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("%s differs between two runs (%v, %v)", name, err1, err2)
		}
	}
	if _, err := Prepare(Input{}).WriteFigure(t.TempDir(), "probe-rates"); err == nil {
		t.Error("probe-rates without episodes: no error")
	}
}

// TestPassKFromRewardsWithoutVerdicts: a tau2 workspace with several
// trials per task and no rubric or verdict shows pass^k with its interval
// and n (before, the trials table sat in the UFS part, which needs
// verdicts). User simulator U with agent g: successes 3/3, 1/3, 2/3, 1/2
// on tasks a-d (analysis.TestRewardTrials has the arithmetic): pass^1
// 0.625 [0.172, 1.000] over 4 tasks; pass^2 per task 1, 0, 1/3, 0, mean
// 1/3, sd sqrt((4/9 + 1/9 + 0 + 1/9)/3) = .4714, half-width
// 3.182 x .4714 / 2 = .750: [-.417, 1.084] clipped to [0, 1]; pass^3 over
// the 3 three-trial tasks 1, 0, 0: 1/3, sd .5774, half-width
// 4.303 x .5774 / sqrt(3) = 1.434: [0, 1].
func TestPassKFromRewardsWithoutVerdicts(t *testing.T) {
	var eps []queries.EpisodeRow
	for task, rs := range map[string][]float64{"a": {1, 1, 1}, "b": {0, 1, 0}, "c": {1, 1, 0}, "d": {0, 1}} {
		for i, r := range rs {
			eps = append(eps, queries.EpisodeRow{SimulationID: fmt.Sprintf("%s-%d", task, i), Format: "tau2", Domain: "airline", UserSim: "U", Agent: "g",
				TaskID: task, Reward: fptr(r), SourceFile: "u.json"})
		}
	}
	sort.Slice(eps, func(i, j int) bool { return eps[i].SimulationID < eps[j].SimulationID })
	dir := t.TempDir()
	if _, err := Prepare(Input{Episodes: &queries.EpisodeReport{Episodes: eps}}).WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### User fidelity score (UFS): not yet measured", "### Trials: pass^k from the rewards",
		`| U | g | 4 | 3 | 0.625 \[0.172, 1.000\] (n 4) | 0.333 \[0.000, 1.000\] (n 4) | 0.333 \[0.000, 1.000\] (n 3) |`} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
