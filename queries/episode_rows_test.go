package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"testing"

	"github.com/ub-bench/ub"
)

func p[T any](v T) *T { return &v }

// TestRowWriterWritesEveryColumn writes one row through each typed writer
// of the episode tables and reads the table back column by column: every
// column of the table must be one the test expects (a migration that adds
// a column fails here until the writer and this test know it) and hold
// the value given, NULL where a nullable field was left nil.
func TestRowWriterWritesEveryColumn(t *testing.T) {
	cases := []struct {
		name, table string
		write       func(*RowWriter) error
		want        map[string]string // column -> value as VARCHAR; "NULL" for NULL
	}{
		{"ep_runs/all set", "ep_runs", func(w *RowWriter) error {
			return w.EpRun(ub.Run{RunID: "r1", SourceFile: "f.json", Format: "tau2", Domain: "airline",
				GitCommit: p("abc"), Tau2Version: p("2.x"), Started: p("2026-01-02"), UserImpl: p("user_simulator"),
				UserModel: p("gpt-4.1"), UserArgs: json.RawMessage(`{"t":0}`), UserSim: "us", AgentImpl: p("llm_agent"),
				AgentModel: p("gpt-5"), AgentArgs: json.RawMessage(`{"e":"high"}`), Agent: "ag", Guidelines: p("g"),
				PolicySHA: p("sha"), MaxSteps: p(100), Seed: p(int64(1) << 40), NoUser: true})
		}, map[string]string{"run_id": "r1", "source_file": "f.json", "format": "tau2", "domain": "airline",
			"git_commit": "abc", "tau2_version": "2.x", "started": "2026-01-02", "user_impl": "user_simulator",
			"user_model": "gpt-4.1", "user_args": `{"t":0}`, "user_sim": "us", "agent_impl": "llm_agent",
			"agent_model": "gpt-5", "agent_args": `{"e":"high"}`, "agent": "ag", "guidelines": "g", "policy_sha": "sha",
			"max_steps": "100", "seed": "1099511627776", "no_user": "true"}},
		{"ep_tasks/all set", "ep_tasks", func(w *RowWriter) error {
			return w.EpTask(&ub.Task{Key: "k1", Domain: "retail", TaskID: "7", Format: "tau1", ReasonForCall: p("rc"),
				KnownInfo: p("ki"), UnknownInfo: p("ui"), TaskInstructions: p("ti"), Persona: p("pe"),
				Instruction: p("in"), UserID: p("u1"), Purpose: p("pu"), Ticket: p("tk"),
				RewardBasis: json.RawMessage(`["DB"]`), InitialState: json.RawMessage(`{"a":1}`),
				CommunicateInfo: json.RawMessage(`["x"]`), NLAssertions: json.RawMessage(`["y"]`),
				Raw: json.RawMessage(`{"id":"7"}`), SourceFile: "tasks.json"})
		}, map[string]string{"task_key": "k1", "domain": "retail", "task_id": "7", "format": "tau1",
			"reason_for_call": "rc", "known_info": "ki", "unknown_info": "ui", "task_instructions": "ti",
			"persona": "pe", "instruction": "in", "user_id": "u1", "purpose": "pu", "ticket": "tk",
			"reward_basis": `["DB"]`, "initial_state": `{"a":1}`, "communicate_info": `["x"]`,
			"nl_assertions": `["y"]`, "raw": `{"id":"7"}`, "source_file": "tasks.json"}},
		{"ep_task_actions/all set", "ep_task_actions", func(w *RowWriter) error {
			return w.EpTaskAction("k1", 3, ub.TaskAction{ActionID: p("a3"), Requestor: "user",
				Name: "toggle", Arguments: json.RawMessage(`{"on":true}`), CompareArgs: json.RawMessage(`["on"]`),
				Info: p("info")})
		}, map[string]string{"task_key": "k1", "idx": "3", "action_id": "a3", "requestor": "user", "name": "toggle",
			"arguments": `{"on":true}`, "compare_args": `["on"]`, "info": "info"}},
		{"ep_task_assertions/all set", "ep_task_assertions", func(w *RowWriter) error {
			return w.EpTaskAssertion("k1", 2, ub.TaskAssertion{EnvType: "user", FuncName: "f",
				Arguments: json.RawMessage(`{"x":2}`), AssertValue: p(false), Message: p("m")})
		}, map[string]string{"task_key": "k1", "idx": "2", "env_type": "user", "func_name": "f",
			"arguments": `{"x":2}`, "assert_value": "false", "message": "m"}},
		{"ep_episodes/all set", "ep_episodes", func(w *RowWriter) error {
			return w.Episode(&ub.Episode{SimulationID: "s1", RunID: "r1", SourceFile: "f.json", SourceIndex: 4,
				ContentHash: "h", Domain: "telecom", TaskID: "t9", TaskKey: p("k1"), Trial: p(2), Seed: p(int64(7)),
				Reward: p(0.5), RewardBasis: json.RawMessage(`["DB"]`), RewardBreakdown: json.RawMessage(`{"DB":1}`),
				DBMatch: p(true), TerminationReason: p("user_stop"), UserCost: p(0.25), AgentCost: p(1.5),
				UserTokensIn: p(int64(2000)), UserTokensOut: p(int64(300)), Duration: p(12.5), StartedAt: p("t0"),
				NMessages: 6, Extra: json.RawMessage(`{"x":[1]}`)})
		}, map[string]string{"simulation_id": "s1", "run_id": "r1", "source_file": "f.json", "source_index": "4",
			"content_hash": "h", "domain": "telecom", "task_id": "t9", "task_key": "k1", "trial": "2", "seed": "7",
			"reward": "0.5", "reward_basis": `["DB"]`, "reward_breakdown": `{"DB":1}`, "db_match": "true",
			"termination_reason": "user_stop", "user_cost": "0.25", "agent_cost": "1.5", "user_tokens_in": "2000",
			"user_tokens_out": "300", "duration": "12.5", "started_at": "t0", "n_messages": "6", "extra": `{"x":[1]}`}},
		{"ep_episodes/nil is NULL, zero is not", "ep_episodes", func(w *RowWriter) error {
			return w.Episode(&ub.Episode{SimulationID: "s0", RunID: "r0", SourceFile: "f", ContentHash: "h",
				Domain: "d", TaskID: "t", Reward: p(0.0), UserCost: p(0.0)})
		}, map[string]string{"simulation_id": "s0", "run_id": "r0", "source_file": "f", "source_index": "0",
			"content_hash": "h", "domain": "d", "task_id": "t", "task_key": "NULL", "trial": "NULL", "seed": "NULL",
			"reward": "0.0", "reward_basis": "NULL", "reward_breakdown": "NULL", "db_match": "NULL",
			"termination_reason": "NULL", "user_cost": "0.0", "agent_cost": "NULL", "user_tokens_in": "NULL",
			"user_tokens_out": "NULL", "duration": "NULL", "started_at": "NULL", "n_messages": "0", "extra": "NULL"}},
		{"ep_messages/all set", "ep_messages", func(w *RowWriter) error {
			return w.EpMessage("s1", &ub.Message{Idx: 5, TurnIdx: 4, Role: "tool", Content: p("ok"),
				ToolCallID: p("c1"), Requestor: p("user"), ToolError: p(true), NToolCalls: 2, PromptTokens: p(int64(11)),
				CompletionTokens: p(int64(12)), Cost: p(0.125), TS: p("t1"), TickID: p(40)})
		}, map[string]string{"simulation_id": "s1", "idx": "5", "turn_idx": "4", "role": "tool", "content": "ok",
			"tool_call_id": "c1", "requestor": "user", "tool_error": "true", "n_tool_calls": "2",
			"prompt_tokens": "11", "completion_tokens": "12", "cost": "0.125", "ts": "t1", "tick_id": "40"}},
		{"ep_attempts/all set", "ep_attempts", func(w *RowWriter) error {
			return w.EpAttempt(ub.Attempt{RunID: "r1", TaskID: "t9", Trial: 2, Attempt: 3, Kept: true,
				Reason: p("infrastructure_error"), SimulationID: p("s1"), KeptID: "s1", SourceFile: "f.json"})
		}, map[string]string{"run_id": "r1", "task_id": "t9", "trial": "2", "attempt": "3", "kept": "true",
			"reason": "infrastructure_error", "simulation_id": "s1", "kept_id": "s1", "source_file": "f.json"}},
		{"ep_task_splits/all set", "ep_task_splits", func(w *RowWriter) error {
			return w.EpTaskSplit(ub.TaskSplit{Domain: "airline", Split: "test", TaskID: "7", SourceFile: "s.json"})
		}, map[string]string{"domain": "airline", "split": "test", "task_id": "7", "source_file": "s.json"}},
		{"ep_domains/all set", "ep_domains", func(w *RowWriter) error {
			return w.EpDomain(ub.DomainPolicy{Domain: "airline", Policy: "# Policy", PolicySHA: "h", SourceFile: "policy.md"})
		}, map[string]string{"domain": "airline", "policy": "# Policy", "policy_sha": "h", "source_file": "policy.md"}},
		{"ep_tool_calls/all set", "ep_tool_calls", func(w *RowWriter) error {
			return w.EpToolCall("s1", ub.ToolCall{MsgIdx: 5, CallIdx: 1, CallID: p("c1"),
				Requestor: "assistant", Name: "lookup", Arguments: json.RawMessage(`{"id":"A"}`)})
		}, map[string]string{"simulation_id": "s1", "msg_idx": "5", "call_idx": "1", "call_id": "c1",
			"requestor": "assistant", "name": "lookup", "arguments": `{"id":"A"}`}},
		{"ep_checks/all set", "ep_checks", func(w *RowWriter) error {
			return w.EpCheck("s1", ub.Check{Kind: "action", Idx: 1, Name: p("lookup"),
				Requestor: p("assistant"), Met: p(false), Reward: p(0.75), Detail: json.RawMessage(`{"d":1}`)})
		}, map[string]string{"simulation_id": "s1", "kind": "action", "idx": "1", "name": "lookup",
			"requestor": "assistant", "met": "false", "reward": "0.75", "detail": `{"d":1}`}},
		{"ep_probe_findings/all set", "ep_probe_findings", func(w *RowWriter) error {
			return w.EpProbeFinding(ub.ProbeFinding{SimulationID: "s1", Probe: "P1a", TurnIdx: p(3), Evidence: "ev",
				Detail: json.RawMessage(`{"q":"x"}`)})
		}, map[string]string{"simulation_id": "s1", "probe": "P1a", "turn_idx": "3", "evidence": "ev",
			"detail": `{"q":"x"}`}},
		{"ep_probe_applicable/all set", "ep_probe_applicable", func(w *RowWriter) error {
			return w.EpProbeApplicable("s1", "P6")
		}, map[string]string{"simulation_id": "s1", "probe": "P6"}},
		{"ep_prices/all set", "ep_prices", func(w *RowWriter) error {
			return w.EpPrice(Price{Model: "m", PriceIn: 0.5, PriceOut: 2, ReadOn: "2026-08-01", Source: "p.toml"})
		}, map[string]string{"model": "m", "price_in": "0.5", "price_out": "2.0", "read_on": "2026-08-01",
			"source": "p.toml"}},
		{"ep_rubric_criteria/all set", "ep_rubric_criteria", func(w *RowWriter) error {
			return w.Criterion(Criterion{CriterionID: "c1", Domain: "airline", TaskID: "0", Family: "disclosure",
				Mode: "mo", Quote: "q", QuoteSource: "known_info", Text: "tx", AppliesWhen: "aw", WrittenBy: "wb",
				VerifiedBy: "vb", Status: "rejected", RejectReason: "rr", PromptVersion: "pv", SourceFile: "r.jsonl",
				SourceLine: 9})
		}, map[string]string{"criterion_id": "c1", "domain": "airline", "task_id": "0", "family": "disclosure",
			"mode": "mo", "quote": "q", "quote_source": "known_info", "text": "tx", "applies_when": "aw",
			"written_by": "wb", "verified_by": "vb", "status": "rejected", "reject_reason": "rr",
			"prompt_version": "pv", "source_file": "r.jsonl", "source_line": "9"}},
		{"ep_verdicts/all set", "ep_verdicts", func(w *RowWriter) error {
			return w.Verdict(StoredVerdict{SimulationID: "s1", CriterionID: "c1", Grader: "g", Verdict: "fail",
				TurnIdx: p(2), Reason: "why", PromptVersion: "pv", RequestKey: "rk", SourceFile: "v.jsonl",
				SourceLine: 3})
		}, map[string]string{"simulation_id": "s1", "criterion_id": "c1", "grader": "g", "verdict": "fail",
			"turn_idx": "2", "reason": "why", "prompt_version": "pv", "request_key": "rk", "source_file": "v.jsonl",
			"source_line": "3"}},
		{"ep_verdicts/empty and nil are NULL", "ep_verdicts", func(w *RowWriter) error {
			return w.Verdict(StoredVerdict{SimulationID: "s1", CriterionID: "c1", Grader: "g", Verdict: "na",
				SourceFile: "v.jsonl"})
		}, map[string]string{"simulation_id": "s1", "criterion_id": "c1", "grader": "g", "verdict": "na",
			"turn_idx": "NULL", "reason": "NULL", "prompt_version": "NULL", "request_key": "NULL",
			"source_file": "v.jsonl", "source_line": "0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			ws, err := Open(ctx, "", Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			err = ws.InTx(ctx, func(*sql.Conn) error {
				w := NewRowWriter(ctx, ws)
				if err := c.write(w); err != nil {
					w.Close()
					return err
				}
				return w.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
			got := readRow(t, ws, c.table)
			var cols []string
			for col := range got {
				cols = append(cols, col)
			}
			sort.Strings(cols)
			for _, col := range cols {
				want, ok := c.want[col]
				if !ok {
					t.Errorf("column %s.%s = %s: not known to the test (a new column needs its writer field)", c.table, col, got[col])
					continue
				}
				if got[col] != want {
					t.Errorf("%s.%s = %s, want %s", c.table, col, got[col], want)
				}
			}
			for col := range c.want {
				if _, ok := got[col]; !ok {
					t.Errorf("%s has no column %s", c.table, col)
				}
			}
		})
	}
}

// readRow reads the one row of table, each column cast to VARCHAR ("NULL"
// for NULL), by column name.
func readRow(t *testing.T, ws *Workspace, table string) map[string]string {
	t.Helper()
	ctx := context.Background()
	var n int
	if err := ws.Conn().QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%s holds %d rows, want 1", table, n)
	}
	rows, err := ws.Conn().QueryContext(ctx, "SELECT * FROM "+table)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := rows.Columns()
	rows.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, col := range cols {
		var s sql.NullString
		if err := ws.Conn().QueryRowContext(ctx, "SELECT CAST("+col+" AS VARCHAR) FROM "+table).Scan(&s); err != nil {
			t.Fatal(err)
		}
		out[col] = "NULL"
		if s.Valid {
			out[col] = s.String
		}
	}
	return out
}

// TestRowWriterFlushLarge: FlushLarge puts the rows of the appenders given
// at least min rows into the transaction (its queries see them) and leaves
// the others buffered until Close; appending goes on after a flush.
func TestRowWriterFlushLarge(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	count := func(c *sql.Conn, table string) int {
		var n int
		if err := c.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	err = ws.InTx(ctx, func(c *sql.Conn) error {
		w := NewRowWriter(ctx, ws)
		for i := range 3 {
			w.EpMessage("s1", &ub.Message{Idx: i, Role: "user"})
		}
		w.EpToolCall("s1", ub.ToolCall{Name: "f", Requestor: "user"})
		if err := w.FlushLarge(2); err != nil {
			return err
		}
		if m, c := count(c, "ep_messages"), count(c, "ep_tool_calls"); m != 3 || c != 0 {
			t.Errorf("after FlushLarge(2): %d messages, %d tool calls in the transaction, want 3 and 0", m, c)
		}
		w.EpMessage("s1", &ub.Message{Idx: 3, Role: "user"})
		if err := w.FlushLarge(2); err != nil { // one message and one call pending: neither is flushed
			return err
		}
		if m := count(c, "ep_messages"); m != 3 {
			t.Errorf("one pending message flushed by FlushLarge(2): %d messages", m)
		}
		if err := w.Close(); err != nil {
			return err
		}
		if m, c := count(c, "ep_messages"), count(c, "ep_tool_calls"); m != 4 || c != 1 {
			t.Errorf("after Close: %d messages, %d tool calls, want 4 and 1", m, c)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
