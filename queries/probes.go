package queries

import (
	"context"
	"database/sql"
)

// ProbeEpisodeRow is an episode and its task's blueprint, for the probes.
// Nil strings are SQL NULL (no task, or a field the task lacks).
type ProbeEpisodeRow struct {
	SimulationID                                            string
	TaskKey                                                 *string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions *string
	Persona, Instruction, UserID, InitialState              *string
}

// ProbeMessageRow is one message of an episode.
type ProbeMessageRow struct {
	SimulationID       string
	Idx, TurnIdx       int
	Role               string
	Content, Requestor *string
	ToolCallID         *string
}

// ProbeCallRow is one tool call.
type ProbeCallRow struct {
	SimulationID    string
	MsgIdx, CallIdx int
	CallID          *string
	Name            string
	Arguments       *string
}

// ProbeActionRow is a gold user action of a task.
type ProbeActionRow struct {
	TaskKey                string
	Idx                    int
	Name                   string
	Arguments, CompareArgs *string
}

// ProbeData is everything the probes read, each list in its key order.
type ProbeData struct {
	Episodes []ProbeEpisodeRow
	Messages []ProbeMessageRow // by simulation_id, idx
	Calls    []ProbeCallRow    // by simulation_id, msg_idx, call_idx
	Actions  []ProbeActionRow  // by task_key, idx
}

// LoadProbeData reads every stored episode with its messages, tool calls and
// its task's gold user actions.
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
	err = epScan(ctx, db, "ep_probe_messages", func(r *sql.Rows) error {
		var m ProbeMessageRow
		err := r.Scan(&m.SimulationID, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolCallID)
		d.Messages = append(d.Messages, m)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = epScan(ctx, db, "ep_probe_calls", func(r *sql.Rows) error {
		var c ProbeCallRow
		err := r.Scan(&c.SimulationID, &c.MsgIdx, &c.CallIdx, &c.CallID, &c.Name, &c.Arguments)
		d.Calls = append(d.Calls, c)
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
