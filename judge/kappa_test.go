package judge

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// table2 builds a 5x5 confusion matrix whose only non-zero cells are the
// 2x2 table t over Approve (first category) and Critical (second).
func table2(t [2][2]int) [NumMoves][NumMoves]int {
	var c [NumMoves][NumMoves]int
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			c[i][j] = t[i][j]
		}
	}
	return c
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestKappaWikipedia checks the worked example of the Wikipedia article
// "Cohen's kappa" (section "Simple example"): 50 grant proposals, both
// readers say yes to 20, A yes and B no to 5, A no and B yes to 10, both no
// to 15; p_o = 0.7, p_e = 0.5, kappa = 0.4.
func TestKappaWikipedia(t *testing.T) {
	ag, err := AgreeTable(table2([2][2]int{{20, 5}, {10, 15}}))
	if err != nil {
		t.Fatal(err)
	}
	if ag.N != 50 || !near(ag.Observed, 0.7, 1e-12) || !near(ag.Expected, 0.5, 1e-12) || !near(ag.Kappa, 0.4, 1e-12) {
		t.Errorf("n=%d p_o=%v p_e=%v kappa=%v; want 50, 0.7, 0.5, 0.4", ag.N, ag.Observed, ag.Expected, ag.Kappa)
	}
	// Specific agreement on "yes": 2*20 / (25 + 30).
	yes := ag.PerMove[Approve.Index()]
	if yes.A != 25 || yes.B != 30 || yes.Both != 20 || !near(yes.Specific, 40.0/55, 1e-12) {
		t.Errorf("per-move yes = %+v", yes)
	}
	if !near(yes.RecallA, 0.8, 1e-12) || !near(yes.RecallB, 20.0/30, 1e-12) {
		t.Errorf("recall %v/%v, want 0.8 and 0.667", yes.RecallA, yes.RecallB)
	}
	if unused := ag.PerMove[Inquiry.Index()]; !math.IsNaN(unused.Specific) {
		t.Errorf("specific agreement of an unused label = %v, want NaN", unused.Specific)
	}
}

// TestKappaStandardError checks the Fleiss-Cohen-Everitt (1969) standard
// error and the 95% Wald interval against the worked example of the
// statpsych R package (D. G. Bonett), ci.kappa(.05, 31, 12, 4, 58), whose
// documentation gives for Cohen's kappa: estimate 0.6756757, SE 0.07344761,
// interval [0.5317210, 0.8196303] (its reference: Fleiss, Levin & Paik,
// Statistical Methods for Rates and Proportions, 3rd ed., 2003). The table
// is symmetric in the two raters, so its transpose must give the same.
func TestKappaStandardError(t *testing.T) {
	for _, tab := range [][2][2]int{{{31, 12}, {4, 58}}, {{31, 4}, {12, 58}}} {
		ag, err := AgreeTable(table2(tab))
		if err != nil {
			t.Fatal(err)
		}
		const tol = 5e-8 // the documentation prints 7 significant digits
		if !near(ag.Kappa, 0.6756757, tol) || !near(ag.SE, 0.07344761, tol) ||
			!near(ag.Lo, 0.5317210, tol) || !near(ag.Hi, 0.8196303, tol) {
			t.Errorf("%v: kappa %.7f SE %.8f CI [%.7f, %.7f]; want 0.6756757, 0.07344761, [0.5317210, 0.8196303]",
				tab, ag.Kappa, ag.SE, ag.Lo, ag.Hi)
		}
	}
}

func TestAgreeEdgeCases(t *testing.T) {
	t.Run("perfect", func(t *testing.T) {
		a := []Move{Approve, Critical, Directive, Inquiry, Other, Critical}
		ag, err := Agree(a, a)
		if err != nil {
			t.Fatal(err)
		}
		// No disagreement gives SE 0: no interval (NaN bounds), not [1, 1].
		if ag.Kappa != 1 || ag.SE != 0 || !math.IsNaN(ag.Lo) || !math.IsNaN(ag.Hi) {
			t.Errorf("kappa %v SE %v [%v, %v], want 1, 0, [NaN, NaN]", ag.Kappa, ag.SE, ag.Lo, ag.Hi)
		}
	})
	t.Run("one label only is undefined", func(t *testing.T) {
		a := []Move{Directive, Directive, Directive}
		ag, err := Agree(a, a)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(ag.Kappa) || !math.IsNaN(ag.SE) || ag.Observed != 1 {
			t.Errorf("kappa %v SE %v p_o %v, want NaN, NaN, 1", ag.Kappa, ag.SE, ag.Observed)
		}
	})
	t.Run("chance", func(t *testing.T) {
		// Each rater splits evenly and agrees on half: kappa 0.
		a := []Move{Approve, Approve, Critical, Critical}
		b := []Move{Approve, Critical, Approve, Critical}
		ag, _ := Agree(a, b)
		if !near(ag.Kappa, 0, 1e-12) {
			t.Errorf("kappa %v, want 0", ag.Kappa)
		}
	})
	for _, tt := range []struct {
		name string
		a, b []Move
		want string
	}{
		{"length mismatch", []Move{Approve}, []Move{Approve, Other}, "1 labels against 2"},
		{"empty", nil, nil, "no items"},
		{"invalid first", []Move{Approve, 0}, []Move{Approve, Other}, "item 1: first"},
		{"invalid second", []Move{Approve}, []Move{Move(9)}, "item 0: second"},
	} {
		t.Run("error "+tt.name, func(t *testing.T) {
			_, err := Agree(tt.a, tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if _, err := AgreeTable([NumMoves][NumMoves]int{}); err == nil {
		t.Error("AgreeTable of an empty table: want an error")
	}
}

func TestAgreementFormat(t *testing.T) {
	ag, _ := AgreeTable(table2([2][2]int{{20, 5}, {10, 15}}))
	var sb strings.Builder
	if err := ag.Format(&sb, "A", "B"); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"n=50", "kappa=0.400", "rows: A, columns: B", "approve           20         5"} {
		if !strings.Contains(out, want) {
			t.Errorf("Format output lacks %q:\n%s", want, out)
		}
	}
}

// TestAgreementEmptyCells: a label neither judge used (here Other, as in
// nearly every real workspace) has no specific agreement or recall. Its
// cells are null in JSON (encoding/json refuses NaN) and "-" in the plain
// table, and the table's header keeps long judge names apart.
func TestAgreementEmptyCells(t *testing.T) {
	a := []Move{Approve, Critical, Directive, Inquiry, Directive}
	b := []Move{Approve, Critical, Directive, Directive, Directive}
	ag, err := Agree(a, b)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(ag)
	if err != nil {
		t.Fatalf("json: %v", err)
	}
	var back struct {
		Kappa   *float64
		PerMove []struct {
			Move     string
			Specific *float64
			RecallB  *float64
		}
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	// p_o = 4/5; p_e = (1*1 + 1*1 + 2*3 + 1*0)/25 = 8/25; kappa = (20/25 - 8/25)/(17/25) = 12/17.
	if back.Kappa == nil || math.Abs(*back.Kappa-12.0/17) > 1e-12 {
		t.Errorf("kappa %v, want 12/17", back.Kappa)
	}
	other := back.PerMove[4]
	if other.Move != "other" || other.Specific != nil || other.RecallB != nil {
		t.Errorf("other: %+v, want null specific and recall", other)
	}
	// Inquiry: A used it once, B never: recall (B/A) 0, precision null.
	if inq := back.PerMove[3]; inq.RecallB != nil {
		t.Errorf("inquiry precision %v, want null", *inq.RecallB)
	}
	var sb strings.Builder
	if err := ag.Format(&sb, "synth", "synth-alt"); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	if strings.Contains(out, "NaN") || !strings.Contains(out, " synth synth-alt ") {
		t.Errorf("plain table:\n%s\nwant no NaN and the names apart", out)
	}
	if !strings.Contains(out, "other            0         0       0         -         -         -") {
		t.Errorf("plain table:\n%s\nwant the other row with dashes", out)
	}
}
