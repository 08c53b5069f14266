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
	want := "report.md review-codes.csv review-codes.png review-codes.svg review-error-share.csv review-error-share.png review-error-share.svg"
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
