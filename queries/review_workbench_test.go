package queries

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// TestUndoKeepsEveryRevision: save, change, skip, then undo three times.
// Each undo makes the revision before the withdrawn one current again;
// every revision stays in the history; the current decision (what every
// statistic reads) is always the latest standing one.
func TestUndoKeepsEveryRevision(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	base := Decision{SimulationID: "s1", Reviewer: "alice", Kind: KindHuman, Source: "web", Batch: "b1"}
	noErr := base
	noErr.Outcome, noErr.DecidedAt, noErr.LeadTime = OutcomeNoError, at, sql.NullFloat64{Float64: 12.5, Valid: true}
	withErr := base
	withErr.Outcome, withErr.DecidedAt = OutcomeError, at.Add(time.Minute)
	withErr.Errors = []ReviewError{{TurnIdx: sql.NullInt64{Int64: 2, Valid: true}, Code: "hallucination", Severity: "minor", Note: "n"}}
	for i, d := range []Decision{noErr, withErr} {
		rev, err := SaveDecision(ctx, ws, d)
		if err != nil || rev != i+1 {
			t.Fatalf("save %d: revision %d, %v", i+1, rev, err)
		}
	}
	skip := base
	skip.DecidedAt = at.Add(2 * time.Minute)
	if rev, err := SkipEpisode(ctx, ws, skip); err != nil || rev != 3 {
		t.Fatalf("skip: revision %d, %v", rev, err)
	}
	current := func() (string, int) {
		d, ok, err := GetDecision(ctx, ws.Conn(), "s1", "alice")
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "", 0
		}
		return d.Outcome, d.Revision
	}
	if o, _ := current(); o != "" {
		t.Fatalf("after the skip the current decision is %q, want none", o)
	}
	// Undo the skip: revision 2 (error) stands again, with its error.
	u, err := UndoDecision(ctx, ws, "s1", "alice", 3, at.Add(3*time.Minute))
	if err != nil || u.Withdrawn.Revision != 3 || !u.OK || u.Current.Revision != 2 {
		t.Fatalf("undo 1: %+v %v", u, err)
	}
	if d, _, _ := GetDecision(ctx, ws.Conn(), "s1", "alice"); d.Outcome != OutcomeError || d.Revision != 2 || len(d.Errors) != 1 || d.Errors[0].Code != "hallucination" {
		t.Fatalf("after undo 1: %+v", d)
	}
	// Undo revision 2: revision 1 (no error, 12.5 s) stands.
	if u, err = UndoDecision(ctx, ws, "s1", "alice", 2, at.Add(4*time.Minute)); err != nil || u.Current.Revision != 1 {
		t.Fatalf("undo 2: %+v %v", u, err)
	}
	if d, _, _ := GetDecision(ctx, ws.Conn(), "s1", "alice"); d.Outcome != OutcomeNoError || d.Revision != 1 || d.LeadTime.Float64 != 12.5 {
		t.Fatalf("after undo 2: %+v", d)
	}
	// A new save after undos numbers on from the history: revision 4.
	if rev, err := SaveDecision(ctx, ws, withErr); err != nil || rev != 4 {
		t.Fatalf("save after undo: revision %d, %v", rev, err)
	}
	if o, r := current(); o != OutcomeError || r != 4 {
		t.Fatalf("current %s r%d, want error r4", o, r)
	}
	for _, rev := range []int{4, 1} {
		if _, err := UndoDecision(ctx, ws, "s1", "alice", rev, at.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if o, _ := current(); o != "" {
		t.Fatalf("after undoing every revision the current decision is %q, want none", o)
	}
	if _, err := UndoDecision(ctx, ws, "s1", "alice", 5, at); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo with nothing standing: %v, want ErrNothingToUndo", err)
	}
	revs, err := DecisionRevisions(ctx, ws.Conn(), "s1", "alice")
	if err != nil || len(revs) != 4 {
		t.Fatalf("history: %d revisions, %v; want 4", len(revs), err)
	}
	for _, r := range revs {
		if !r.UndoneAt.Valid {
			t.Errorf("revision %d stands after every undo", r.Revision)
		}
	}
	if revs[1].Outcome != OutcomeSkipped || len(revs[2].Errors) != 1 {
		t.Errorf("history: %+v", revs)
	}
}

// TestUndoTwiceWithdrawsOnce: the same undo sent twice (a double key
// press, a replayed POST) withdraws its revision once. Before, the second
// undo withdrew the revision before it too, and no decision stood.
func TestUndoTwiceWithdrawsOnce(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	d := Decision{SimulationID: "s1", Reviewer: "alice", Kind: KindHuman, Source: "web", Batch: "b1", Outcome: OutcomeNoError, DecidedAt: at}
	for range 2 {
		if _, err := SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
	}
	// Revision 1 stands below revision 2: it cannot be withdrawn first.
	if _, err := UndoDecision(ctx, ws, "s1", "alice", 1, at); !errors.Is(err, ErrNotLatest) {
		t.Fatalf("undo of revision 1 under revision 2: %v, want ErrNotLatest", err)
	}
	for i := range 2 {
		u, err := UndoDecision(ctx, ws, "s1", "alice", 2, at.Add(time.Minute))
		if err != nil || u.Withdrawn.Revision != 2 || u.Already != (i == 1) {
			t.Fatalf("undo %d of revision 2: %+v %v", i+1, u, err)
		}
	}
	cur, ok, err := GetDecision(ctx, ws.Conn(), "s1", "alice")
	if err != nil || !ok || cur.Revision != 1 {
		t.Fatalf("after undoing revision 2 twice: %+v %v %v, want revision 1 standing", cur, ok, err)
	}
	revs, err := DecisionRevisions(ctx, ws.Conn(), "s1", "alice")
	if err != nil || len(revs) != 2 || !revs[0].UndoneAt.Valid || revs[1].UndoneAt.Valid {
		t.Fatalf("history %+v %v, want revision 2 undone and revision 1 standing", revs, err)
	}
}
