package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
)

// ProbeTaskRow is a task's blueprint, for the probes. Nil strings are SQL
// NULL (a field the task lacks).
type ProbeTaskRow struct {
	TaskKey                                                 string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions *string
	Persona, Instruction, UserID, InitialState              *string
}

// ProbeEpisodeRef is a stored episode the probes run on: its id and its
// task's key (nil: no task).
type ProbeEpisodeRef struct {
	SimulationID string
	TaskKey      *string
	NoUser       bool // its run has no simulated user (ep_runs.no_user)
	NoRun        bool // a placeholder of a simulation that never ran (termination_reason infrastructure_error)
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

// probeTasks reads the blueprint of every task referred to by an episode
// whose last row the probes' scan reads at a step in [lo, hi) (by
// task_key), and their gold user actions (by task_key, idx).
func probeTasks(ctx context.Context, db Querier, lo, hi int64) ([]ProbeTaskRow, []ProbeActionRow, error) {
	var tasks []ProbeTaskRow
	err := epScan(ctx, db, "ep_probe_tasks", func(r *sql.Rows) error {
		var t ProbeTaskRow
		err := r.Scan(&t.TaskKey, &t.ReasonForCall, &t.KnownInfo, &t.UnknownInfo, &t.TaskInstructions,
			&t.Persona, &t.Instruction, &t.UserID, &t.InitialState)
		tasks = append(tasks, t)
		return err
	}, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	var actions []ProbeActionRow
	err = epScan(ctx, db, "ep_probe_user_actions", func(r *sql.Rows) error {
		var a ProbeActionRow
		err := r.Scan(&a.TaskKey, &a.Idx, &a.Name, &a.Arguments, &a.CompareArgs)
		actions = append(actions, a)
		return err
	}, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	return tasks, actions, nil
}

// probeRangeRows is how many rowids of ep_messages StreamProbeEpisodes
// reads per step (and of ep_tool_calls, the same share of the table).
const probeRangeRows = 8192

// probeWindowSteps is how many steps of StreamProbeEpisodes share one
// read of the tasks: each read scans ep_tasks, and the tasks read are
// held until the next.
const probeWindowSteps = 16

// maxProbeRowID bounds the rowids StreamProbeEpisodes reads: DuckDB gives
// the rows a transaction has appended and not committed rowids from 2^55.
const maxProbeRowID = 1 << 50

// StreamProbeEpisodes calls fn with every stored episode and its messages
// (by idx, each with its tool calls by call_idx; a call whose message is
// not stored is left out). It reads ep_messages and ep_tool_calls in
// storage order, a range of rowids at a time (a step), and hands over an
// episode as soon as its last row has come: memory holds a range and the
// episodes begun in it, not the workspace, since ub writes an episode's
// rows together. Which step completes which episode, and each episode's
// row counts, are planned in a temporary table (ep_probe_plan.sql), in
// DuckDB, not in Go. Before the episodes of every few steps it calls
// tasks with the blueprints and gold user actions of their tasks (and of
// no other); fn's episodes refer to those until the next call. Episodes
// come in storage order; those completed by one step (and, first, those
// without any rows) by simulation_id. No query is open while fn or tasks
// runs, so they may write on db. Call it in a transaction
// (Workspace.InTx) that has not appended messages or tool calls, so that
// the plan and the rows are one snapshot.
func StreamProbeEpisodes(ctx context.Context, db Querier, tasks func([]ProbeTaskRow, []ProbeActionRow) error,
	fn func(ProbeEpisodeRef, []ProbeMessageRow) error) error {
	return streamProbeEpisodes(ctx, db, probeRangeRows, probeWindowSteps, tasks, fn)
}

// probePending is an episode whose rows are being read.
type probePending struct {
	ref   ProbeEpisodeRef
	msgs  []ProbeMessageRow
	calls []probeCallAt
}

type probeCallAt struct {
	msgIdx, callIdx int
	call            ProbeCallRow
}

// messages sorts the episode's messages by idx and gives each the calls
// made in it, by call_idx.
func (p *probePending) messages() []ProbeMessageRow {
	sort.SliceStable(p.msgs, func(i, j int) bool { return p.msgs[i].Idx < p.msgs[j].Idx })
	sort.SliceStable(p.calls, func(i, j int) bool {
		a, b := p.calls[i], p.calls[j]
		return a.msgIdx < b.msgIdx || a.msgIdx == b.msgIdx && a.callIdx < b.callIdx
	})
	j := 0
	for i := range p.msgs {
		m := &p.msgs[i]
		for j < len(p.calls) && p.calls[j].msgIdx < m.Idx {
			j++
		}
		// j stays at the message's first call: a message stored twice
		// with one idx gets its calls twice, as a join would give them.
		for k := j; k < len(p.calls) && p.calls[k].msgIdx == m.Idx; k++ {
			m.Calls = append(m.Calls, p.calls[k].call)
		}
	}
	return p.msgs
}

// streamProbeEpisodes is StreamProbeEpisodes with steps of rangeRows row
// ids and a read of the tasks every windowSteps steps. In turn: it plans
// the scan (ep_probe_plan.sql: each simulation id's row counts and the
// step that brings its last row); then, step by step, it reads the step's
// ranges of ep_messages and ep_tool_calls, gathering each simulation id's
// rows, and reads from the plan the ids completed at that step, which it
// hands to fn (an episode) or drops (rows of no episode).
func streamProbeEpisodes(ctx context.Context, db Querier, rangeRows, windowSteps int64,
	tasks func([]ProbeTaskRow, []ProbeActionRow) error, fn func(ProbeEpisodeRef, []ProbeMessageRow) error) (err error) {
	var extM, extC int64
	if err := db.QueryRowContext(ctx, q("ep_probe_extent")).Scan(&extM, &extC); err != nil {
		return err
	}
	if extM > maxProbeRowID || extC > maxProbeRowID {
		return fmt.Errorf("queries: probes: ep_messages or ep_tool_calls holds rows not committed (rowid %d, %d)", extM, extC)
	}
	steps := max(1, (extM+rangeRows-1)/rangeRows, (extC+rangeRows-1)/rangeRows)
	// Step k reads [k*rm, (k+1)*rm) of ep_messages and [k*rc, (k+1)*rc)
	// of ep_tool_calls: the same share of each table.
	rm, rc := max(1, (extM+steps-1)/steps), max(1, (extC+steps-1)/steps)
	if _, err := db.ExecContext(ctx, q("ep_probe_plan"), rm, rc); err != nil {
		return fmt.Errorf("queries: probes: plan: %w", err)
	}
	defer func() {
		if _, derr := db.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp.ub_probe_plan"); err == nil && derr != nil {
			err = derr
		}
	}()
	pending := map[string]*probePending{}
	// row finds the pending rows of sim, beginning them at its first row.
	row := func(sim string) *probePending {
		p := pending[sim]
		if p == nil {
			p = &probePending{ref: ProbeEpisodeRef{SimulationID: sim}}
			pending[sim] = p
		}
		return p
	}
	var ready []*probePending
	// Step -1 hands over the episodes without any rows.
	for k := int64(-1); k < steps; k++ {
		if k == -1 || k%windowSteps == 0 {
			lo, hi := k, (k/windowSteps+1)*windowSteps
			ts, acts, err := probeTasks(ctx, db, lo, hi)
			if err != nil {
				return err
			}
			if err := tasks(ts, acts); err != nil {
				return err
			}
		}
		if k >= 0 {
			if err := scanProbeRange(ctx, db, k*rm, min((k+1)*rm, extM), k*rc, min((k+1)*rc, extC), row); err != nil {
				return err
			}
		}
		err := epScan(ctx, db, "ep_probe_plan_step", func(r *sql.Rows) error {
			var sim string
			var stored bool
			var key *string
			var needM, needC int
			var noUser, noRun bool
			if err := r.Scan(&sim, &stored, &key, &needM, &needC, &noUser, &noRun); err != nil {
				return err
			}
			p := pending[sim]
			delete(pending, sim)
			if p == nil {
				p = &probePending{ref: ProbeEpisodeRef{SimulationID: sim}}
			}
			if len(p.msgs) != needM || len(p.calls) != needC {
				// The plan and the rows come from one snapshot: only
				// rows appended since would leave one incomplete.
				return fmt.Errorf("queries: probes: %s has %d messages and %d tool calls, read %d and %d", sim, needM, needC, len(p.msgs), len(p.calls))
			}
			if stored {
				p.ref.TaskKey, p.ref.NoUser, p.ref.NoRun = key, noUser, noRun
				ready = append(ready, p)
			}
			return nil
		}, k)
		if err != nil {
			return err
		}
		for i, p := range ready {
			if err := fn(p.ref, p.messages()); err != nil {
				return err
			}
			ready[i] = nil
		}
		ready = ready[:0]
	}
	if len(pending) > 0 {
		first := ""
		for sim := range pending {
			if first == "" || sim < first {
				first = sim
			}
		}
		return fmt.Errorf("queries: probes: %d simulation ids (first %s) have rows the plan does not count", len(pending), first)
	}
	return nil
}

// scanProbeRange reads the rowids [loM, hiM) of ep_messages and [loC,
// hiC) of ep_tool_calls, each row to the pending rows row gives for its
// simulation id.
func scanProbeRange(ctx context.Context, db Querier, loM, hiM, loC, hiC int64, row func(sim string) *probePending) error {
	if hiM > loM {
		err := epScan(ctx, db, "ep_probe_message_range", func(r *sql.Rows) error {
			var m ProbeMessageRow
			if err := r.Scan(&m.SimulationID, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolCallID); err != nil {
				return err
			}
			p := row(m.SimulationID)
			m.SimulationID = p.ref.SimulationID
			p.msgs = append(p.msgs, m)
			return nil
		}, loM, hiM)
		if err != nil {
			return err
		}
	}
	if hiC > loC {
		err := epScan(ctx, db, "ep_probe_call_range", func(r *sql.Rows) error {
			var sim, call string
			var c probeCallAt
			if err := r.Scan(&sim, &c.msgIdx, &c.callIdx, &call); err != nil {
				return err
			}
			p := row(sim)
			if err := json.Unmarshal([]byte(call), &c.call); err != nil {
				return fmt.Errorf("ep_tool_calls: call %d of %s message %d: %w", c.callIdx, sim, c.msgIdx, err)
			}
			p.calls = append(p.calls, c)
			return nil
		}, loC, hiC)
		if err != nil {
			return err
		}
	}
	return nil
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

// epScanList is epScan with list (the ids of a batch) written as a JSON
// array, the query's last parameter, after args.
func epScanList(ctx context.Context, db Querier, name string, list any, row func(*sql.Rows) error, args ...any) error {
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	return epScan(ctx, db, name, row, append(args, string(b))...)
}

// probeStage names the temporary table that stages each probe results
// table (StageProbeResults).
var probeStage = map[string]string{"ep_probe_findings": "ub_probe_findings", "ep_probe_applicable": "ub_probe_applicable"}

// StageProbeResults makes an empty temporary table with the columns of
// ep_probe_findings and one of ep_probe_applicable, and sends w's rows of
// those tables there. Call it on the connection of the transaction that
// will replace them, and replace once w is closed: it makes the stored
// findings and applicability rows those staged and drops the staging
// tables. Only the difference is written: the findings of the episodes
// whose findings changed, and the applicability rows of the episodes
// whose applicability rows changed, each deleted then inserted in the
// transaction, so that (the tables having no key) no row is stored twice
// and one stored twice is made one again. A run
// that changes nothing writes nothing; deleting every row and appending
// it again took a second run of ub probes twice as long as the first, and
// each later one longer still (a primary key, since dropped, updated twice
// per row, the deleted rows kept in the file). When neither table holds a row there is
// nothing to replace: the rows go straight to their tables and replace
// does nothing (staged, the first run at 30 times the synthetic fidelity
// study peaked 77 MiB higher).
func StageProbeResults(ctx context.Context, c *sql.Conn, w *RowWriter) (replace func(context.Context) error, err error) {
	var stored bool
	if err := c.QueryRowContext(ctx, q("ep_probe_any")).Scan(&stored); err != nil {
		return nil, fmt.Errorf("stage probe results: %w", err)
	}
	if !stored {
		return func(context.Context) error { return nil }, nil
	}
	for table, stage := range probeStage {
		if _, err := c.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+stage+" AS SELECT * FROM "+table+" LIMIT 0"); err != nil {
			return nil, fmt.Errorf("stage %s: %w", table, err)
		}
	}
	w.stage(probeStage)
	return func(ctx context.Context) error { return replaceProbeResults(ctx, c) }, nil
}

// replaceProbeResults writes the difference between the staged and the
// stored results (StageProbeResults) and drops the staging tables.
func replaceProbeResults(ctx context.Context, c *sql.Conn) (err error) {
	defer func() {
		drop := func(table string) {
			if _, derr := c.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp."+table); err == nil && derr != nil {
				err = derr
			}
		}
		for _, stage := range probeStage {
			drop(stage)
		}
		drop("ub_probe_changed")            // ep_probe_changed.sql's
		drop("ub_probe_changed_applicable") // ep_probe_changed_applicable.sql's
	}()
	for _, name := range []string{"ep_probe_changed", "ep_probe_replace_findings", "ep_probe_insert_findings",
		"ep_probe_changed_applicable", "ep_probe_replace_applicable", "ep_probe_insert_applicable"} {
		if _, err := c.ExecContext(ctx, q(name)); err != nil {
			return fmt.Errorf("replace probe results (%s): %w", name, err)
		}
	}
	return nil
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
