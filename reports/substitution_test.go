package reports

import (
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestSubstitutionOnlyK8And64: at N = 1 the workspace holds K = 0, 4, 8, 16
// and 64 (the N x K surface adds 4 and 16). The substitution test is K = 8
// and 64 against K = 0 (SPEC section 5), so its rows are exactly those
// three settings and its correlation runs over 3 levels.
func TestSubstitutionOnlyK8And64(t *testing.T) {
	st := &queries.Study{Judge: "j", Simulators: []queries.StudySimulator{{Name: "s"}}}
	moves := []string{"approve", "critical", "directive", "inquiry"}
	for d := 0; d < 3; d++ {
		for m := 0; m < 4; m++ {
			st.Points = append(st.Points, queries.StudyPoint{ID: string(rune('a'+d)) + moves[m], Developer: string(rune('a' + d)), Real: moves[m]})
		}
	}
	settings := [][2]int{{14, 0}, {14, 2}, {14, 8}, {14, 64}, {1, 0}, {1, 4}, {1, 8}, {1, 16}, {1, 64}}
	for si, nk := range settings {
		for i, p := range st.Points {
			mv := p.Real
			if (i+si)%3 == 0 { // some misses, differing by setting
				mv = "other"
			}
			st.Generations = append(st.Generations, queries.StudyGeneration{Point: i, Simulator: "s", Condition: queries.CondNoProfile,
				N: nk[0], K: nk[1], Move: mv, Words: 2})
		}
	}
	r := Prepare(Input{Study: st})
	f, err := r.historySweep()
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, row := range f.table.rows {
		if strings.HasPrefix(row[0], "substitution") {
			ks = append(ks, row[2])
		}
	}
	if got := strings.Join(ks, ","); got != "0,8,64" {
		t.Errorf("substitution settings %s, want 0,8,64", got)
	}
	_, subCap, _ := strings.Cut(f.caption, "substitution at N = 1: r(ln(1 + K), accuracy) = ")
	if !strings.Contains(subCap, "over 3 levels") || strings.Contains(subCap, "K = 4") || strings.Contains(subCap, "K = 16") {
		t.Errorf("caption %q: want the substitution correlation over 3 levels", f.caption)
	}
}
