package judge

import (
	"math"
	"testing"
)

// TestAgreeFine: six items, A = new_work, refine_redirect, pushback,
// bug_report, question, question; B = refine_redirect, refine_redirect,
// bug_report, bug_report, question, new_work. By hand, 7-way: p_o = 3/6,
// p_e = (1*1 + 1*2 + 1*0 + 1*2 + 2*1) / 36 = 7/36, kappa = (1/2 - 7/36) /
// (29/36) = 11/29 = 0.3793. Collapsed (directive, directive, critical,
// critical, inquiry, inquiry against directive, directive, critical,
// critical, inquiry, directive): p_o = 5/6, p_e = (2*3 + 2*2 + 2*1) / 36 =
// 1/3, kappa = (5/6 - 1/3) / (2/3) = 0.75.
func TestAgreeFine(t *testing.T) {
	a := []Fine{NewWork, RefineRedirect, Pushback, BugReport, Question, Question}
	b := []Fine{RefineRedirect, RefineRedirect, BugReport, BugReport, Question, NewWork}
	got, err := AgreeFine(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 6 || math.Abs(got.Kappa7.Kappa-11.0/29) > 1e-12 || math.Abs(got.Kappa4.Kappa-0.75) > 1e-12 {
		t.Errorf("AgreeFine = n %d, kappa7 %.6f, kappa4 %.6f; want 6, %.6f, 0.75", got.N, got.Kappa7.Kappa, got.Kappa4.Kappa, 11.0/29)
	}
	if _, err := AgreeFine(a, b[:5]); err == nil {
		t.Error("6 labels against 5: no error")
	}
}
