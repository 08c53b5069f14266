package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/analysis"
)

func reviewStatsFixture(t *testing.T) analysis.ReviewStats {
	t.Helper()
	f := func(code, sev string) []analysis.ReviewFinding {
		return []analysis.ReviewFinding{{Code: code, Severity: sev}}
	}
	items := []analysis.ReviewItem{
		{Episode: "e1", Reviewer: "alice", Kind: "human", Outcome: "no_error", Domain: "airline", TaskID: "1", Reward: 1, HasReward: true},
		{Episode: "e2", Reviewer: "alice", Kind: "human", Outcome: "error", Domain: "airline", TaskID: "2", Reward: 0, HasReward: true, Errors: f("hallucination", "critical_hindered")},
		{Episode: "e3", Reviewer: "alice", Kind: "human", Outcome: "error", Domain: "retail", TaskID: "3", Reward: 1, HasReward: true, Errors: f("other", "minor")},
		{Episode: "e3", Reviewer: "bob", Kind: "human", Outcome: "error", Domain: "retail", TaskID: "3", Reward: 1, HasReward: true, Errors: f("other", "minor")},
	}
	st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestWriteReviewDeterministic(t *testing.T) {
	st := reviewStatsFixture(t)
	a, b := t.TempDir(), t.TempDir()
	fa, err := WriteReview(a, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteReview(b, st); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fa {
		names = append(names, filepath.Base(f))
	}
	// Every table of report.md has its CSV: the five tables under the
	// figures, each as table-HEADING.csv.
	want := "report.md review-codes.csv review-codes.png review-codes.svg review-error-share.csv review-error-share.png review-error-share.svg " +
		"table-agent-failure-against-simulator-error.csv table-error-share-and-critical-share.csv table-errors-by-code.csv " +
		"table-policies-for-episodes-with-a-critical-simulator-error.csv table-reviewer-agreement-and-adjudication.csv"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("files %s, want %s", got, want)
	}
	for _, n := range names {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs (or is empty)", n)
		}
	}
	md, _ := os.ReadFile(filepath.Join(a, "report.md"))
	// 2 of 3 episodes with an error; retail 1/1; 1 critical (e2); the
	// cross tab has e2 as agent failure with a simulator error.
	for _, s := range []string{"| all | 3 | 2/3 = 66.7%", "| retail | 1 | 1/1 = 100.0%", "| hallucination | 1 | 1 | 1 |",
		"| agent failure | 0 | 1 | 1 |", "1 tasks: airline/2", "| alice (human) | bob (human) | 1 |"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q:\n%s", s, md)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(a, "review-error-share.csv"))
	if !strings.Contains(string(csv), "all,3,2,0.667,") {
		t.Errorf("review-error-share.csv:\n%s", csv)
	}
}

// TestReviewLLMSection: an LLM reviewer beside two humans. By hand (final
// human decisions e1 no, e2 critical hallucination, e3 minor other; the LLM
// says e1 other, e2 critical hallucination, e3 none, e4 none, e5 failed):
// has error [human][llm] = e1 [0][1], e2 [1][1], e3 [1][0]: Se 1/2, Sp
// 0/1, p_pos = 2/(2+2) = 0.5, p_neg = 0/2 = 0, alpha: o_yy = 2, o_yn =
// o_ny = 2, n_y = 4, n_n = 2, 1 - 5*4/(2*4*2) = -0.25; Se + Sp <= 1, so
// no correction. Critical: Se 1/1, Sp 2/2; the LLM's critical share 1/4,
// corrected (0.25 + 1 - 1)/(1 + 1 - 1) = 25%.
func TestReviewLLMSection(t *testing.T) {
	f := func(code, sev string) []analysis.ReviewFinding {
		return []analysis.ReviewFinding{{Code: code, Severity: sev}}
	}
	items := []analysis.ReviewItem{
		{Episode: "e1", Reviewer: "alice", Kind: "human", Outcome: "no_error"},
		{Episode: "e2", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: f("hallucination", "critical_hindered")},
		{Episode: "e3", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: f("other", "minor")},
		{Episode: "e1", Reviewer: "llm:opus", Kind: "llm", Outcome: "error", Errors: f("other", "minor")},
		{Episode: "e2", Reviewer: "llm:opus", Kind: "llm", Outcome: "error", Errors: f("hallucination", "critical_hindered")},
		{Episode: "e3", Reviewer: "llm:opus", Kind: "llm", Outcome: "no_error"},
		{Episode: "e4", Reviewer: "llm:opus", Kind: "llm", Outcome: "no_error"},
		{Episode: "e5", Reviewer: "llm:opus", Kind: "llm", Outcome: "failed"},
	}
	st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := ReviewMarkdown(st)
	plain := strings.NewReplacer(`\`, "", "&lt;", "<").Replace(md) // mdTable's escapes
	for _, s := range []string{
		"**llm:opus**: 4 episodes reviewed (1 failed reviews left out), 3 of them also decided by people.",
		"| has a simulator error | 3 | 1/2 = 50.0% [", "| 0.500 | 0.000 | -0.250 |",
		"| family hallucination | 3 | 1/1 = 100.0% [", "| family other | 3 | 0/1 = 0.0% [",
		"| simulator error | 2/3 = 66.7% [", "| 2/4 = 50.0% [", "n/a: sensitivity + specificity <= 1",
		"| critical error | 1/3 = 33.3% [", "| 1/4 = 25.0% [", "| 25.0% [",
	} {
		if !strings.Contains(plain, s) {
			t.Errorf("review markdown lacks %q:\n%s", s, plain)
		}
	}
	if md != ReviewMarkdown(st) {
		t.Error("two renderings differ")
	}
}

// TestReviewAgreementAlpha: the reviewer agreement table gives
// Krippendorff's alpha beside each kappa. alice and bob on e1 (no, no),
// e2 (critical, critical), e3 (minor, no), e5 (no, critical): 4 units of
// 2 values, n = 8. Has error: 4 no and 4 yes values, 4 disagreeing
// ordered pairs (e3, e5): alpha = 1 - (n-1) * 4 / (2 * 4 * 4) = 1 -
// 28/32 = 0.125 (kappa: p_o 1/2, p_e 1/2, 0). Critical: 5 no, 3 yes, 2
// disagreeing pairs (e5): alpha = 1 - 7 * 2 / (2 * 5 * 3) = 8/15 = 0.533
// (kappa: p_o 3/4, p_e 1/2, 0.5).
func TestReviewAgreementAlpha(t *testing.T) {
	f := func(code, sev string) []analysis.ReviewFinding {
		return []analysis.ReviewFinding{{Code: code, Severity: sev}}
	}
	items := []analysis.ReviewItem{
		{Episode: "e1", Reviewer: "alice", Kind: "human", Outcome: "no_error"},
		{Episode: "e1", Reviewer: "bob", Kind: "human", Outcome: "no_error"},
		{Episode: "e2", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: f("hallucination", "critical_hindered")},
		{Episode: "e2", Reviewer: "bob", Kind: "human", Outcome: "error", Errors: f("hallucination", "critical_hindered")},
		{Episode: "e3", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: f("other", "minor")},
		{Episode: "e3", Reviewer: "bob", Kind: "human", Outcome: "no_error"},
		{Episode: "e5", Reviewer: "alice", Kind: "human", Outcome: "no_error"},
		{Episode: "e5", Reviewer: "bob", Kind: "human", Outcome: "error", Errors: f("wrong_sequence", "critical_helped")},
	}
	st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := strings.ReplaceAll(ReviewMarkdown(st), `\`, "") // mdTable's escapes
	want := "| reviewer A | reviewer B | episodes | kappa: has error | alpha: has error | kappa: critical | alpha: critical | has error [both no, A only, B only, both] |"
	if !strings.Contains(md, want) {
		t.Errorf("agreement header: want %q in\n%s", want, md)
	}
	var row string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| alice (human) | bob (human) |") {
			row = l
		}
	}
	cells := strings.Split(strings.Trim(row, "| "), " | ")
	if len(cells) != 8 || cells[2] != "4" || !strings.HasPrefix(cells[3], "0.000 [") || cells[4] != "0.125" ||
		!strings.HasPrefix(cells[5], "0.500 [") || cells[6] != "0.533" || cells[7] != "1, 1, 1, 1" {
		t.Errorf("agreement row %q", row)
	}
}

// TestReviewAgreementPerfectNoNaN: two reviewers who agree on every
// episode's severity have kappa 1 with standard error 0, so no interval:
// the cell says so instead of printing "[NaN, NaN]". Critical: e1 no, e2
// yes for both: p_o = 1, p_e = 1/2, kappa 1.
func TestReviewAgreementPerfectNoNaN(t *testing.T) {
	items := []analysis.ReviewItem{
		{Episode: "e1", Reviewer: "alice", Kind: "human", Outcome: "no_error"},
		{Episode: "e1", Reviewer: "bob", Kind: "human", Outcome: "no_error"},
		{Episode: "e2", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: []analysis.ReviewFinding{{Code: "other", Severity: "critical_hindered"}}},
		{Episode: "e2", Reviewer: "bob", Kind: "human", Outcome: "error", Errors: []analysis.ReviewFinding{{Code: "other", Severity: "critical_hindered"}}},
	}
	st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := ReviewMarkdown(st)
	if strings.Contains(md, "NaN") || !strings.Contains(md, "| 1.000 (no interval) |") {
		t.Errorf("perfect agreement: want 1.000 (no interval) and no NaN in\n%s", md)
	}
}

// TestReviewLLMSalvagedCounted: the LLM reviewer's paragraph says how
// many of its reviews were salvaged (2 of e1-e3; e4 failed and is left
// out), never mixing them in silently; with none salvaged it says nothing
// of it.
func TestReviewLLMSalvagedCounted(t *testing.T) {
	f := func(code, sev string) []analysis.ReviewFinding {
		return []analysis.ReviewFinding{{Code: code, Severity: sev}}
	}
	items := []analysis.ReviewItem{
		{Episode: "e1", Reviewer: "alice", Kind: "human", Outcome: "no_error"},
		{Episode: "e2", Reviewer: "alice", Kind: "human", Outcome: "error", Errors: f("hallucination", "critical_hindered")},
		{Episode: "e1", Reviewer: "llm:opus", Kind: "llm", Outcome: "no_error"},
		{Episode: "e2", Reviewer: "llm:opus", Kind: "llm", Outcome: "error", Errors: f("hallucination", "critical_hindered"), Salvaged: true},
		{Episode: "e3", Reviewer: "llm:opus", Kind: "llm", Outcome: "error", Errors: f("other", "critical_helped"), Salvaged: true},
		{Episode: "e4", Reviewer: "llm:opus", Kind: "llm", Outcome: "failed"},
	}
	st, err := analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "**llm:opus**: 3 episodes reviewed (1 failed reviews left out), 2 of them also decided by people; 2 of the reviews were salvaged from the raw response of a review tau2 failed to parse."
	if md := ReviewMarkdown(st); !strings.Contains(md, want) {
		t.Errorf("lacks %q:\n%s", want, md)
	}
	for i := range items {
		items[i].Salvaged = false
	}
	st, _ = analysis.ReviewStatistics(items, analysis.ReviewOptions{})
	if md := ReviewMarkdown(st); strings.Contains(md, "salvaged") || !strings.Contains(md, "2 of them also decided by people.\n") {
		t.Errorf("without salvaged reviews:\n%s", md)
	}
}
