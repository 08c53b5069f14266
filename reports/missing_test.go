package reports

import (
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestMissingGenerationCountsAsMiss: simulator s has no profile generation
// at point p1. That point must count as a missed moment (and be shown as
// missing), not vanish: developer a scores 1/2 (p0 hit, p1 missing) and
// developer b 2/2, so the macro accuracy is (0.5 + 1) / 2 = 0.750 over 4
// moments. Leaving p1 out would give (1/1 + 2/2) / 2 = 1.000 over 3.
func TestMissingGenerationCountsAsMiss(t *testing.T) {
	st := &queries.Study{Judge: "j",
		Points: []queries.StudyPoint{
			{ID: "p0", Developer: "a", Real: "approve"},
			{ID: "p1", Developer: "a", Real: "critical"},
			{ID: "p2", Developer: "b", Real: "approve"},
			{ID: "p3", Developer: "b", Real: "directive"},
		},
		Simulators: []queries.StudySimulator{{Name: "s"}},
	}
	for i, p := range st.Points {
		for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
			if cond == queries.CondProfile && p.ID == "p1" {
				continue
			}
			st.Generations = append(st.Generations, queries.StudyGeneration{Point: i, Simulator: "s", Condition: cond,
				N: defaultN, K: defaultK, Move: p.Real, Words: 3})
		}
	}
	r := Prepare(Input{Study: st})
	f, err := r.leaderboard()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range f.table.header {
		col[h] = i
	}
	var found bool
	for _, row := range f.table.rows {
		if row[col["condition"]] != queries.CondProfile {
			continue
		}
		found = true
		if row[col["accuracy"]] != "0.750" || row[col["moments"]] != "4" || row[col["missing"]] != "1" {
			t.Errorf("profile row %v: want accuracy 0.750 over 4 moments, 1 missing", row)
		}
	}
	if !found {
		t.Fatalf("no profile row in %v", f.table.rows)
	}
}
