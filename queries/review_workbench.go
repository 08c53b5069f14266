package queries

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The workbench's history, skips, undo, pre-fill and paged queue
// (migration 0015).

// ErrNothingToUndo is returned by UndoDecision when the reviewer has no
// standing revision on the episode.
var ErrNothingToUndo = errors.New("nothing to undo")

// Revision is one revision of a reviewer's decision in the history.
type Revision struct {
	Decision
	UndoneAt sql.NullTime // set when an undo withdrew it
}

// DecisionRevisions lists every revision of reviewer's decision on an
// episode, newest first, each with its errors.
func DecisionRevisions(ctx context.Context, db Querier, simID, reviewer string) ([]Revision, error) {
	rows, err := db.QueryContext(ctx, q("review_revisions"), simID, reviewer)
	if err != nil {
		return nil, err
	}
	var out []Revision
	for rows.Next() {
		r := Revision{Decision: Decision{SimulationID: simID, Reviewer: reviewer}}
		if err := rows.Scan(&r.Revision, &r.Kind, &r.Outcome, &r.Batch, &r.Source, &r.DecidedAt, &r.LeadTime, &r.ClientTime,
			&r.Prefilled, &r.UndoneAt); err != nil {
			rows.Close()
			return nil, err
		}
		r.DecidedAt = r.DecidedAt.UTC()
		if r.UndoneAt.Valid {
			r.UndoneAt.Time = r.UndoneAt.Time.UTC()
		}
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		rows, err := db.QueryContext(ctx, q("review_revision_errors"), simID, reviewer, out[i].Revision)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var idx int
			var e ReviewError
			if err := rows.Scan(&idx, &e.TurnIdx, &e.Code, &e.Severity, &e.Note); err != nil {
				rows.Close()
				return nil, err
			}
			out[i].Errors = append(out[i].Errors, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func nextRevision(ctx context.Context, c Querier, simID, reviewer string) (int, error) {
	var prev sql.NullInt64
	if err := c.QueryRowContext(ctx, q("review_decision_revision"), simID, reviewer).Scan(&prev); err != nil {
		return 0, err
	}
	return int(prev.Int64) + 1, nil
}

// SkipEpisode records that d's reviewer passed on d's episode: a revision
// with outcome skipped in the history (with d's time, lead time and
// batch), and no current decision, in one transaction. d.Outcome and
// d.Errors are ignored. It returns the revision.
func SkipEpisode(ctx context.Context, ws *Workspace, d Decision) (int, error) {
	if d.Reviewer == "" {
		return 0, fmt.Errorf("skip of %s: no reviewer", d.SimulationID)
	}
	d.Errors = nil
	rev := 0
	err := ws.InTx(ctx, func(c *sql.Conn) error {
		var err error
		if rev, err = nextRevision(ctx, c, d.SimulationID, d.Reviewer); err != nil {
			return err
		}
		if err := deleteCurrent(ctx, c, d.SimulationID, d.Reviewer); err != nil {
			return err
		}
		return writeRevision(ctx, c, d, OutcomeSkipped, rev)
	})
	return rev, err
}

// Undo is what UndoDecision did.
type Undo struct {
	Withdrawn Revision // the revision the undo withdrew
	// Already is set when the revision was withdrawn before: the undo
	// changed nothing (a replayed request).
	Already bool
	// Current is the decision that stands now (ok false: none, or a skip
	// stands: Skipped).
	Current Decision
	OK      bool
	Skipped bool
}

// ErrNotLatest is returned by UndoDecision when the revision it names
// stands but a later revision of the same reviewer stands after it: only
// the latest standing revision can be withdrawn.
var ErrNotLatest = errors.New("not the latest standing revision")

// UndoDecision withdraws revision of reviewer's decision on an episode
// (it stays in the history, marked undone at at) and makes the revision
// before it current again, in one transaction: the decision it held, a
// skip, or nothing. The undo names the revision it withdraws, so that the
// same undo sent twice withdraws it once: a revision already withdrawn
// changes nothing (Undo.Already). A revision that does not exist is
// ErrNothingToUndo; one that stands below a later standing revision is
// ErrNotLatest.
func UndoDecision(ctx context.Context, ws *Workspace, simID, reviewer string, revision int, at time.Time) (Undo, error) {
	var u Undo
	err := ws.InTx(ctx, func(c *sql.Conn) error {
		revs, err := DecisionRevisions(ctx, c, simID, reviewer)
		if err != nil {
			return err
		}
		var standing []Revision
		found := false
		for _, r := range revs {
			if r.Revision == revision {
				found = true
				if r.UndoneAt.Valid {
					u.Withdrawn, u.Already = r, true
					return nil
				}
			}
			if !r.UndoneAt.Valid {
				standing = append(standing, r)
			}
		}
		if !found {
			return fmt.Errorf("revision %d of %s of %s: %w", revision, simID, reviewer, ErrNothingToUndo)
		}
		if standing[0].Revision != revision {
			return fmt.Errorf("revision %d of %s of %s (revision %d stands after it): %w", revision, simID, reviewer, standing[0].Revision, ErrNotLatest)
		}
		u.Withdrawn = standing[0]
		if _, err := c.ExecContext(ctx, q("review_revision_undo"), at.UTC(), simID, reviewer, u.Withdrawn.Revision); err != nil {
			return err
		}
		u.Withdrawn.UndoneAt = sql.NullTime{Time: at.UTC(), Valid: true}
		if err := deleteCurrent(ctx, c, simID, reviewer); err != nil {
			return err
		}
		if len(standing) == 1 {
			return nil
		}
		prev := standing[1]
		if prev.Outcome == OutcomeSkipped {
			u.Skipped = true
			return nil
		}
		u.Current, u.OK = prev.Decision, true
		return writeCurrent(ctx, c, prev.Decision, prev.Revision)
	})
	return u, err
}

// LLMDecisionCount counts the decisions of kind llm of reviewer.
func LLMDecisionCount(ctx context.Context, db Querier, reviewer string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, q("review_llm_decisions_count"), reviewer).Scan(&n)
	return n, err
}

// QueueSummary is a reviewer's queue in numbers.
type QueueSummary struct {
	Total, Decided, Skipped int
	Next                    string // the first episode neither decided nor skipped ("": none)
}

// QueuePlace is where an episode is in a reviewer's queue.
type QueuePlace struct {
	Position   int // 1-based; 0: not in the queue
	Prev, Next string
	Total      int
}

// ReviewSkips lists the standing skips (OutcomeSkipped, no errors), by
// episode and reviewer.
func ReviewSkips(ctx context.Context, db Querier) ([]Decision, error) {
	rows, err := db.QueryContext(ctx, q("review_skips"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		d := Decision{Outcome: OutcomeSkipped}
		if err := rows.Scan(&d.SimulationID, &d.Reviewer, &d.Kind, &d.Batch, &d.Source, &d.DecidedAt, &d.Revision, &d.LeadTime, &d.ClientTime); err != nil {
			return nil, err
		}
		d.DecidedAt = d.DecidedAt.UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}
