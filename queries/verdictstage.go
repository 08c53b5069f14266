package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// VerdictStage is the import of one file of verdicts: the verdicts are
// appended to a temporary table as they are read (Add), checked against
// the workspace by one query over all of them (Check), and the accepted
// ones stored by one statement (Store). Open it inside a transaction
// (Workspace.InTx) so that a failed import stores nothing; Close drops
// the temporary tables. Its memory does not grow with the file: DuckDB
// holds the staged rows (spilling past memory_limit).
type VerdictStage struct {
	ws  *Workspace
	app *appender.Appender
}

// StageVerdicts creates the stage of a verdict import.
func StageVerdicts(ctx context.Context, ws *Workspace) (*VerdictStage, error) {
	if _, err := ws.conn.ExecContext(ctx, q("fidelity_stage_create")); err != nil {
		return nil, fmt.Errorf("verdict stage: %w", err)
	}
	app, err := ws.appender(ctx, "temp", "main", "ub_verdict_stage")
	if err != nil {
		return nil, err
	}
	return &VerdictStage{ws: ws, app: app}, nil
}

// Add stages the verdict of line (reason "" staged as NULL).
func (s *VerdictStage) Add(line int, simulationID, criterionID, grader, verdict string, turnIdx *int, reason string) error {
	var turn driver.Value
	if turnIdx != nil {
		turn = int64(*turnIdx)
	}
	return s.app.AppendRow(int32(line), simulationID, criterionID, grader, verdict, turn, nullStr(reason))
}

// StagedRefusal is a staged verdict the workspace refuses, with what the
// refusal names.
type StagedRefusal struct {
	Line                              int
	FirstLine                         int // > 0: the same (simulation, criterion, grader) was given on this line
	SimulationID, CriterionID, Grader string
	TurnIdx                           sql.NullInt64
	CriterionKnown                    bool // the criterion is stored
	EpisodeKnown                      bool // the episode is stored
	CriterionDomain, CriterionTask    string
	EpisodeDomain, EpisodeTask        string
	LastTurn                          int  // the episode's last turn_idx, -1 without messages (fails only)
	UserTurn                          bool // TurnIdx is a turn of the user (fails only)
}

// Check flushes the staged verdicts and lists, by line, those the
// workspace refuses: a repeat of an earlier line's (simulation,
// criterion, grader), an unknown criterion or episode, a criterion of
// another task than its episode, a turn past the episode's end or not
// the user's. Call it once, after the last Add.
func (s *VerdictStage) Check(ctx context.Context) ([]StagedRefusal, error) {
	err := s.app.Close()
	s.app = nil
	if err != nil {
		return nil, fmt.Errorf("verdict stage: %w", err)
	}
	if _, err := s.ws.conn.ExecContext(ctx, q("fidelity_stage_check")); err != nil {
		return nil, fmt.Errorf("verdict check: %w", err)
	}
	rows, err := s.ws.conn.QueryContext(ctx, q("fidelity_stage_refused"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StagedRefusal
	for rows.Next() {
		var r StagedRefusal
		var first sql.NullInt64
		if err := rows.Scan(&r.Line, &first, &r.SimulationID, &r.CriterionID, &r.Grader, &r.TurnIdx, &r.CriterionKnown, &r.EpisodeKnown,
			&r.CriterionDomain, &r.CriterionTask, &r.EpisodeDomain, &r.EpisodeTask, &r.LastTurn, &r.UserTurn); err != nil {
			return nil, err
		}
		r.FirstLine = int(first.Int64)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Store stores the staged verdicts Check did not refuse as verdicts of
// file, replacing any stored verdict of the same (simulation, criterion,
// grader), and returns how many it stored and their graders, by name.
func (s *VerdictStage) Store(ctx context.Context, file string) (int, []string, error) {
	if _, err := s.ws.conn.ExecContext(ctx, q("fidelity_stage_delete")); err != nil {
		return 0, nil, fmt.Errorf("verdicts: %w", err)
	}
	res, err := s.ws.conn.ExecContext(ctx, q("fidelity_stage_store"), file)
	if err != nil {
		return 0, nil, fmt.Errorf("verdicts: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, nil, err
	}
	rows, err := s.ws.conn.QueryContext(ctx, q("fidelity_stage_graders"))
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var graders []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return 0, nil, err
		}
		graders = append(graders, g)
	}
	return int(n), graders, rows.Err()
}

// Close drops the stage's temporary tables.
func (s *VerdictStage) Close(ctx context.Context) error {
	if s.app != nil {
		s.app.Close()
		s.app = nil
	}
	for _, t := range []string{"ub_verdict_refused", "ub_verdict_stage"} {
		if _, err := s.ws.conn.ExecContext(ctx, "DROP TABLE IF EXISTS temp.main."+t); err != nil {
			return err
		}
	}
	return nil
}

// IngestErrorRow is one bad line to record in ingest_errors.
type IngestErrorRow struct {
	Path   string
	Line   int
	Reason string
}

// AddIngestErrors records bad lines of format (an appender: one
// statement, not one per line).
func AddIngestErrors(ctx context.Context, ws *Workspace, format string, es []IngestErrorRow) error {
	return appendRows(ctx, ws, "ingest_errors", len(es), func(i int) []driver.Value {
		return []driver.Value{es[i].Path, int32(es[i].Line), es[i].Reason, format}
	})
}
