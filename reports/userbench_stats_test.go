package reports

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// hitStudy builds a study of devs developers with per points each, all
// real moves "directive"; hit(sim, cond, dev, point) says whether the
// simulator's generation there is the real move ("inquiry" otherwise).
func hitStudy(devs, per int, sims map[string][]string, hit func(sim, cond string, dev, pt int) bool) *queries.Study {
	st := &queries.Study{Judge: "j", Generations: []queries.StudyGeneration{}}
	for d := range devs {
		for p := range per {
			st.Points = append(st.Points, queries.StudyPoint{ID: fmt.Sprintf("p%02d-%02d", d, p), Developer: fmt.Sprintf("d%02d", d), Real: "directive"})
		}
	}
	for _, sim := range sortedKeysOf(sims) {
		st.Simulators = append(st.Simulators, queries.StudySimulator{Name: sim})
		for _, cond := range sims[sim] {
			for i := range st.Points {
				mv := "inquiry"
				if hit(sim, cond, i/per, i%per) {
					mv = "directive"
				}
				st.Generations = append(st.Generations, queries.StudyGeneration{Point: i, Simulator: sim, Condition: cond,
					N: defaultN, K: defaultK, Move: mv, Words: 3})
			}
		}
	}
	return st
}

// TestTerseRecoveryNeedsAGain: "terse-only recovers X%" divides by the
// profile's gain. On 12 developers with 10 moments each, without profile
// 5 hits each and terse 6: with profile 7 and 4 hits alternating, the gain
// is +0.05 with a per-developer spread of 0.15 (95% interval about
// -0.04 to +0.14), so the share (0.6 - 0.5) / 0.05 = 200% is noise and
// must not be printed; with profile 7 hits for everyone the gain is +0.2
// for every developer and the share exactly 50% in every replicate.
func TestTerseRecoveryNeedsAGain(t *testing.T) {
	conds := map[string][]string{"s": {queries.CondNoProfile, queries.CondProfile, queries.CondTerse}}
	for _, c := range []struct {
		name    string
		profile func(dev int) int
		want    string
		wantNot string
	}{
		{"a gain the data cannot tell from zero", func(dev int) int { return 7 - 3*(dev%2) }, "not estimable", "recovers"},
		{"a clear gain", func(int) int { return 7 }, "terse-only recovers 50% (95% bootstrap 50% to 50%) of the profile's gain +0.200", "not estimable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := hitStudy(12, 10, conds, func(_, cond string, dev, pt int) bool {
				switch cond {
				case queries.CondNoProfile:
					return pt < 5
				case queries.CondTerse:
					return pt < 6
				}
				return pt < c.profile(dev)
			})
			f, err := Prepare(Input{Study: st}).ablationTerse()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(f.caption, c.want) || strings.Contains(f.caption, c.wantNot) {
				t.Errorf("caption %q: want %q, not %q", f.caption, c.want, c.wantNot)
			}
		})
	}
}

// TestLeaderboardTopCluster: the leaderboard names the simulators the data
// cannot tell from the top, never "X leads". On 12 developers with 10
// moments: "best" hits 8, "near" 7 on every third developer and 8 on the
// others (best - near: 4 differences of +0.1 and 8 zeros, sign-flip p =
// 2/16 over the 2^4 patterns of the non-zero ones), "far" 3 (best - far
// and near - far positive on all 12: p = 2/4096 each). Holm over the
// three: 3 * 2/4096, then 2 * 2/4096 (raised to the running maximum
// 6/4096), then 1 * 2/16 = 0.125: best and near are not distinguishable,
// far is out of the cluster.
func TestLeaderboardTopCluster(t *testing.T) {
	sims := map[string][]string{"best": {queries.CondNoProfile}, "near": {queries.CondNoProfile}, "far": {queries.CondNoProfile}}
	hit := func(sim, _ string, dev, pt int) bool {
		switch sim {
		case "best":
			return pt < 8
		case "near":
			if dev%3 == 0 {
				return pt < 7
			}
			return pt < 8
		}
		return pt < 3
	}
	r := Prepare(Input{Study: hitStudy(12, 10, sims, hit)})
	c := r.comparison(queries.CondNoProfile)
	if fmt.Sprint(c.TopCluster) != "[best near]" {
		t.Errorf("top cluster %v, want [best near]", c.TopCluster)
	}
	holm := map[string]float64{}
	for _, p := range c.Pairs {
		holm[p.A+"-"+p.B] = p.Holm
	}
	checkNear(t, "best-near Holm", holm["best-near"], 2.0/16)
	checkNear(t, "best-far Holm", holm["best-far"], 6.0/4096)
	checkNear(t, "near-far Holm", holm["near-far"], 6.0/4096)
	f, err := r.leaderboard()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(f.caption, "leads") || !strings.Contains(f.caption, "the top cluster (not distinguishable from the highest, best, at Holm-adjusted p >= 0.05) is best, near.") {
		t.Errorf("caption %q: want the top cluster best, near and no leader", f.caption)
	}
	t.Run("too few developers to compare", func(t *testing.T) {
		r := Prepare(Input{Study: hitStudy(4, 10, sims, hit)})
		f, err := r.leaderboard()
		if err != nil {
			t.Fatal(err)
		}
		want := "Left out of the comparison (fewer than 10 developers): best, far, near."
		if !strings.Contains(f.caption, want) || strings.Contains(f.caption, "top cluster") {
			t.Errorf("caption %q: want %q and no top cluster", f.caption, want)
		}
		for _, row := range f.table.rows {
			if row[1] == "best" && (row[8] != "4" || row[len(row)-1] != "n < 10") {
				t.Errorf("row %v: want n = 4 shown and marked n < 10", row)
			}
		}
		if _, err := r.pairwise(); err == nil {
			t.Error("pairwise drawn from 4 developers")
		}
	})
}

func checkNear(t *testing.T, name string, got, want float64) {
	t.Helper()
	if d := got - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// TestLinesComeFromProfileSessions: the chance and majority lines are
// formed from the developers' profile-session moves and scored on the
// held-out moments; never read from the moments they are scored on. Every
// held-out real move is "directive" and every profile-session move
// "approve": a predictor built from the profile never says directive, so
// both lines are 0. Read from the held-out moments they would be 1 (the
// in-sample oracle: every developer's favourite move, and a mix of one
// move whose collision probability is 1).
func TestLinesComeFromProfileSessions(t *testing.T) {
	sims := map[string][]string{"s": {queries.CondNoProfile}}
	st := hitStudy(12, 10, sims, func(_, _ string, _, pt int) bool { return pt < 5 })
	for d := range 12 {
		st.ProfileMoves = append(st.ProfileMoves, queries.StudyProfileMove{Developer: fmt.Sprintf("d%02d", d), Move: "approve", Count: 6})
	}
	f, err := Prepare(Input{Study: st}).leaderboard()
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{}
	for _, row := range f.table.rows {
		lines[row[1]] = row
	}
	for _, name := range []string{"chance line", "majority line"} {
		if row := lines[name]; row == nil || row[3] != "0.000" || row[8] != "12" {
			t.Errorf("%s row %v: want 0.000 over 12 developers (formed from the profile sessions)", name, row)
		}
	}
	t.Run("no profile moves, no lines", func(t *testing.T) {
		st.ProfileMoves = nil
		f, err := Prepare(Input{Study: st}).leaderboard()
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range f.table.rows {
			if strings.HasSuffix(row[1], " line") {
				t.Errorf("line row %v drawn without profile-session moves", row)
			}
		}
		if !strings.Contains(f.caption, "No chance or majority line") {
			t.Errorf("caption %q does not say why the lines are missing", f.caption)
		}
	})
}

// TestSweepHolmFamily: a view's family is its settings other than the
// anchor. History at K = 0 (anchor), 2 and 4 on 12 developers: K = 2 adds
// a hit for every second developer (paired t p near 0.007), K = 4 for
// every fourth (p near 0.08). Holm over the m = 2 tests: the smaller p
// doubled, the larger max(that, itself); the anchor's test (undefined)
// is not counted; the table prints both and m.
func TestSweepHolmFamily(t *testing.T) {
	st := &queries.Study{Judge: "j", Generations: []queries.StudyGeneration{}}
	for d := range 12 {
		for p := range 10 {
			st.Points = append(st.Points, queries.StudyPoint{ID: fmt.Sprintf("p%02d-%02d", d, p), Developer: fmt.Sprintf("d%02d", d), Real: "directive"})
		}
	}
	extra := map[int]func(dev int) int{0: func(int) int { return 0 }, 2: func(d int) int { return 1 - d%2 }, 4: func(d int) int {
		if d%4 == 0 {
			return 1
		}
		return 0
	}}
	for _, k := range []int{0, 2, 4} {
		for i := range st.Points {
			mv := "inquiry"
			if i%10 < 5+extra[k](i/10) {
				mv = "directive"
			}
			st.Generations = append(st.Generations, queries.StudyGeneration{Point: i, Simulator: "s", Condition: queries.CondNoProfile, N: defaultN, K: k, Move: mv, Words: 3})
		}
	}
	f, err := Prepare(Input{Study: st}).historySweep()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range f.table.header {
		col[h] = i
	}
	raw := map[string]float64{}
	holm := map[string]string{}
	for _, row := range f.table.rows {
		if row[col["tests"]] != "2" {
			t.Errorf("row %v: want 2 tests in the view", row)
		}
		if row[col["setting"]] != "0" {
			raw[row[col["setting"]]] = num(t, row[col["p"]])
		}
		holm[row[col["setting"]]] = row[col["p_holm"]]
	}
	if raw["2"] >= raw["4"] || raw["2"] > 0.01 || raw["4"] < 0.05 {
		t.Fatalf("raw p %v: want K = 2 below 0.01 and K = 4 above 0.05", raw)
	}
	if want := pval(2 * raw["2"]); holm["2"] != want {
		t.Errorf("K = 2 Holm %s, want 2 p = %s", holm["2"], want)
	}
	if holm["4"] != pval(raw["4"]) || holm["0"] != "NaN" && holm["0"] != "" && holm["0"] != pval(math.NaN()) {
		t.Errorf("K = 4 Holm %s (want %s), anchor %q", holm["4"], pval(raw["4"]), holm["0"])
	}
}

// TestChanceLineSeedReading: beside the chance line (formed from the
// profile sessions, SPEC section 5) the leaderboard shows the seed's
// reading, sum_m q_m^2 of the scored moments' own mix, with its n. Twelve
// developers of ten scored moments; the even ones say directive five times
// and inquiry five (q = .5, .5: sum q^2 = .5), the odd ones directive nine
// times and approve once (q = .9, .1: .81 + .01 = .82). By hand: mean
// (6 x .5 + 6 x .82) / 12 = .66; deviations +-.16, sd
// sqrt(12 x .0256 / 11) = .167116, t(.975, 11) = 2.200985 (Student's t
// table), half-width 2.200985 x .167116 / sqrt(12) = .106181:
// [0.554, 0.766], n 12. Every profile session says directive, so the
// chance line is q(directive): .5 and .9, mean 0.700.
func TestChanceLineSeedReading(t *testing.T) {
	sims := map[string][]string{"s": {queries.CondNoProfile}}
	st := hitStudy(12, 10, sims, func(_, _ string, _, pt int) bool { return pt < 5 })
	for i := range st.Points {
		d, p := i/10, i%10
		switch {
		case d%2 == 0 && p >= 5:
			st.Points[i].Real = "inquiry"
		case d%2 == 1 && p == 0:
			st.Points[i].Real = "approve"
		}
	}
	for d := range 12 {
		st.ProfileMoves = append(st.ProfileMoves, queries.StudyProfileMove{Developer: fmt.Sprintf("d%02d", d), Move: "directive", Count: 6})
	}
	f, err := Prepare(Input{Study: st}).leaderboard()
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, row := range f.table.rows {
		rows[row[1]] = row
	}
	if row := rows["chance line"]; row == nil || row[3] != "0.700" {
		t.Errorf("chance line row %v, want 0.700", row)
	}
	row := rows["chance line, seed's reading (sum q^2)"]
	if row == nil || row[3] != "0.660" || row[4] != "0.554" || row[5] != "0.766" || row[8] != "12" {
		t.Errorf("seed's reading row %v, want 0.660 [0.554, 0.766] over 12 developers", row)
	}
	if !strings.Contains(f.caption, "the seed's reading") || !strings.Contains(f.caption, "0.660 [0.554, 0.766] (95% t) over the same 12 developers") {
		t.Errorf("caption %q does not give the seed's reading", f.caption)
	}
}
