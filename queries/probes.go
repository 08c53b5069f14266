package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// ProbeEpisodeRow is an episode and its task's blueprint, for the probes.
// Nil strings are SQL NULL (no task, or a field the task lacks).
type ProbeEpisodeRow struct {
	SimulationID                                            string
	TaskKey                                                 *string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions *string
	Persona, Instruction, UserID, InitialState              *string
}

// ProbeMessageRow is one message of an episode with its tool calls.
type ProbeMessageRow struct {
	SimulationID       string
	Idx, TurnIdx       int
	Role               string
	Content, Requestor *string
	ToolCallID         *string
	Calls              []ProbeCallRow
}

// ProbeCallRow is one tool call.
type ProbeCallRow struct {
	CallID    *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ProbeActionRow is a gold user action of a task.
type ProbeActionRow struct {
	TaskKey                string
	Idx                    int
	Name                   string
	Arguments, CompareArgs *string
}

// ProbeData is what the probes read besides the messages: every episode
// with its task's blueprint (by simulation_id) and the gold user actions (by
// task_key, idx).
type ProbeData struct {
	Episodes []ProbeEpisodeRow
	Actions  []ProbeActionRow
}

// LoadProbeData reads every stored episode with its task's blueprint and
// the gold user actions.
func LoadProbeData(ctx context.Context, db Querier) (*ProbeData, error) {
	d := &ProbeData{}
	err := epScan(ctx, db, "ep_probe_episodes", func(r *sql.Rows) error {
		var e ProbeEpisodeRow
		err := r.Scan(&e.SimulationID, &e.TaskKey, &e.ReasonForCall, &e.KnownInfo, &e.UnknownInfo, &e.TaskInstructions,
			&e.Persona, &e.Instruction, &e.UserID, &e.InitialState)
		d.Episodes = append(d.Episodes, e)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = epScan(ctx, db, "ep_probe_user_actions", func(r *sql.Rows) error {
		var a ProbeActionRow
		err := r.Scan(&a.TaskKey, &a.Idx, &a.Name, &a.Arguments, &a.CompareArgs)
		d.Actions = append(d.Actions, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// StreamProbeMessages calls fn with each episode's messages in order, one
// episode at a time (episodes by simulation_id), so that memory holds one
// episode whatever the workspace holds. fn must not use db.
func StreamProbeMessages(ctx context.Context, db Querier, fn func(simulationID string, msgs []ProbeMessageRow) error) error {
	var cur []ProbeMessageRow
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		err := fn(cur[0].SimulationID, cur)
		cur = nil
		return err
	}
	err := epScan(ctx, db, "ep_probe_messages", func(r *sql.Rows) error {
		var m ProbeMessageRow
		var calls *string
		if err := r.Scan(&m.SimulationID, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolCallID, &calls); err != nil {
			return err
		}
		if calls != nil {
			if err := json.Unmarshal([]byte(*calls), &m.Calls); err != nil {
				return fmt.Errorf("ep_probe_messages: calls of %s message %d: %w", m.SimulationID, m.Idx, err)
			}
		}
		if len(cur) > 0 && cur[0].SimulationID != m.SimulationID {
			if err := flush(); err != nil {
				return err
			}
		}
		cur = append(cur, m)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

func epScan(ctx context.Context, db Querier, name string, row func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, q(name), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ClearProbeResults removes every stored finding and applicability row.
func ClearProbeResults(ctx context.Context, db Querier) error {
	if _, err := db.ExecContext(ctx, q("ep_clear_findings")); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, q("ep_clear_applicable"))
	return err
}

// ProbeRate is a probe's count over the episodes it applies to.
type ProbeRate struct {
	SourceFile, UserSim, Domain string // SourceFile and Domain are "" in per-simulator rates
	Probe                       string
	N, Hits                     int
}

// ProbeRatesByFile returns each probe's rate per result file.
func ProbeRatesByFile(ctx context.Context, db Querier) ([]ProbeRate, error) {
	var out []ProbeRate
	err := epScan(ctx, db, "ep_probe_rates", func(r *sql.Rows) error {
		var p ProbeRate
		err := r.Scan(&p.SourceFile, &p.UserSim, &p.Domain, &p.Probe, &p.N, &p.Hits)
		out = append(out, p)
		return err
	})
	return out, err
}

// TaskMismatchByFile returns, per result file, how many of its episodes
// probe P0 flagged (the hits of ProbeRatesByFile for P0).
func TaskMismatchByFile(ctx context.Context, db Querier) (map[string]int, error) {
	out := map[string]int{}
	err := epScan(ctx, db, "ep_task_mismatch_by_file", func(r *sql.Rows) error {
		var file string
		var hits int
		err := r.Scan(&file, &hits)
		out[file] = hits
		return err
	})
	return out, err
}

// ProbeRatesBySim returns each probe's rate per user simulator.
func ProbeRatesBySim(ctx context.Context, db Querier) ([]ProbeRate, error) {
	var out []ProbeRate
	err := epScan(ctx, db, "ep_probe_rates_by_sim", func(r *sql.Rows) error {
		var p ProbeRate
		err := r.Scan(&p.UserSim, &p.Probe, &p.N, &p.Hits)
		out = append(out, p)
		return err
	})
	return out, err
}

// FindingRow is a stored probe finding.
type FindingRow struct {
	SimulationID string  `json:"simulation_id"`
	SourceFile   string  `json:"source_file"`
	UserSim      string  `json:"user_sim"`
	Probe        string  `json:"probe"`
	TurnIdx      *int    `json:"turn_idx"`
	Evidence     string  `json:"evidence"`
	Detail       *string `json:"-"`
}

// Findings lists stored findings, of one probe or ("" ) of all.
func Findings(ctx context.Context, db Querier, probe string) ([]FindingRow, error) {
	var out []FindingRow
	err := epScan(ctx, db, "ep_findings_list", func(r *sql.Rows) error {
		var f FindingRow
		err := r.Scan(&f.SimulationID, &f.SourceFile, &f.UserSim, &f.Probe, &f.TurnIdx, &f.Evidence, &f.Detail)
		out = append(out, f)
		return err
	}, probe, probe)
	return out, err
}
