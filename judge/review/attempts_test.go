package review

import (
	"context"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestAttemptStats: three episodes decided by a human, one with a
// simulator error; the ledger has two attempts discarded before e1 and
// one before e9, which no human decided. Kept only: 1 of 3; every
// attempt: 1 + 2 of 3 + 2.
func TestAttemptStats(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, q := range []string{
		`INSERT INTO ep_attempts VALUES ('r', '1', 0, 1, false, 'user_hallucination', NULL, 'e1', 'f'),
		  ('r', '1', 0, 2, false, 'user_hallucination', NULL, 'e1', 'f'), ('r', '1', 0, 3, true, NULL, 'e1', 'e1', 'f'),
		  ('r', '9', 0, 1, false, 'user_hallucination', NULL, 'e9', 'f'), ('r', '9', 0, 2, true, NULL, 'e9', 'e9', 'f')`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var ds []queries.Decision
	for _, id := range []string{"e1", "e2", "e3"} {
		d := queries.Decision{SimulationID: id, Reviewer: "ann", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Source: "t", DecidedAt: importTime}
		if id == "e2" {
			d.Outcome, d.Errors = queries.OutcomeError, []queries.ReviewError{{Code: "hallucination", Severity: "minor"}}
		}
		ds = append(ds, d)
	}
	if err := queries.ReplaceReviewer(ctx, ws, "ann", ds); err != nil {
		t.Fatal(err)
	}
	st, err := ReportStats(ctx, ws.Conn())
	if err != nil || st == nil {
		t.Fatalf("stats %v, %v", st, err)
	}
	a, err := AttemptStats(ctx, ws.Conn(), *st)
	if err != nil || a == nil {
		t.Fatalf("attempts %v, %v", a, err)
	}
	if a.Kept.K != 1 || a.Kept.N != 3 || a.Discarded != 2 || a.PerAttempt.K != 3 || a.PerAttempt.N != 5 {
		t.Errorf("kept %d/%d, discarded %d, per attempt %d/%d; want 1/3, 2, 3/5", a.Kept.K, a.Kept.N, a.Discarded, a.PerAttempt.K, a.PerAttempt.N)
	}
}
