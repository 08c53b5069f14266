// Package reviewtest writes small tau2 episodes straight into a workspace's
// ep_* tables, for tests of the review workbench (the real ingest is
// ub ingest's tau2 reader).
package reviewtest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// Message is one message of a fixture episode.
type Message struct {
	Role      string // user | assistant | tool
	Content   string
	Requestor string // tool messages
	Calls     []Call
}

// Call is a tool call.
type Call struct{ Name, Arguments string }

// Probe is a probe finding at a turn (-1: the whole episode).
type Probe struct {
	Probe    string
	Turn     int
	Evidence string
}

// Fixture is one fixture episode; its task and run are made from it.
type Fixture struct {
	ID, Domain, TaskID string
	Reward             float64
	Reason, Known      string // the task's blueprint
	Messages           []Message
	Probes             []Probe
}

// Insert writes the episodes, one task and one run each, with
// queries.RowWriter (turn_idx = the message's position), in one
// transaction.
func Insert(ctx context.Context, ws *queries.Workspace, eps []Fixture) error {
	null := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	str := func(s string) *string { return &s }
	return ws.InTx(ctx, func(_ *sql.Conn) error {
		rw := queries.NewRowWriter(ctx, ws)
		// Each table's rows are written in turn, as the tables are listed.
		for _, e := range eps {
			maxSteps, seed := 100, int64(1)
			rw.EpRun(ub.Run{RunID: "run-" + e.ID, SourceFile: "fixture.json", Format: "tau2", Domain: e.Domain,
				GitCommit: str("abc123"), Tau2Version: str("2.x"), UserImpl: str("user_simulator"),
				UserModel: str("gpt-4.1"), UserSim: "user_simulator:gpt-4.1@t0", AgentImpl: str("llm_agent"),
				AgentModel: str("gpt-4.1"), Agent: "llm_agent:gpt-4.1@t0", Guidelines: str("Play the customer."),
				MaxSteps: &maxSteps, Seed: &seed})
		}
		for _, e := range eps {
			rw.EpTask(&ub.Task{Key: "task-" + e.ID, Domain: e.Domain, TaskID: e.TaskID, Format: "tau2",
				ReasonForCall: null(e.Reason), KnownInfo: null(e.Known), Raw: jsonString("{}"),
				SourceFile: "fixture.json"})
		}
		for i, e := range eps {
			trial, seed, reward, userCost, agentCost, duration := 0, int64(1), e.Reward, 0.01, 0.02, 12.5
			rw.Episode(&ub.Episode{SimulationID: e.ID, RunID: "run-" + e.ID, SourceFile: "fixture.json",
				SourceIndex: i, ContentHash: "hash-" + e.ID, Domain: e.Domain, TaskID: e.TaskID,
				TaskKey: str("task-" + e.ID), Trial: &trial, Seed: &seed, Reward: &reward,
				TerminationReason: str("user_stop"), UserCost: &userCost, AgentCost: &agentCost, Duration: &duration,
				NMessages: len(e.Messages)})
		}
		for _, e := range eps {
			for j, m := range e.Messages {
				rw.EpMessage(e.ID, &ub.Message{Idx: j, TurnIdx: j, Role: m.Role,
					Content: null(m.Content), Requestor: null(m.Requestor), NToolCalls: len(m.Calls)})
			}
		}
		for _, e := range eps {
			for j, m := range e.Messages {
				for k, c := range m.Calls {
					req := "assistant"
					if m.Role == "user" {
						req = "user"
					}
					var args json.RawMessage
					if c.Arguments != "" {
						args = jsonString(c.Arguments)
					}
					rw.EpToolCall(e.ID, ub.ToolCall{MsgIdx: j, CallIdx: k,
						CallID: str(fmt.Sprintf("call-%d-%d", j, k)), Requestor: req, Name: c.Name, Arguments: args})
				}
			}
		}
		for _, e := range eps {
			for _, p := range e.Probes {
				var turn *int
				if p.Turn >= 0 {
					turn = &p.Turn
				}
				rw.EpProbeFinding(ub.ProbeFinding{SimulationID: e.ID, Probe: p.Probe, TurnIdx: turn,
					Evidence: p.Evidence})
			}
		}
		return rw.Close()
	})
}

// jsonString is s as a JSON string: the fixture has always stored its
// task and its call arguments as JSON strings holding the text.
func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// Three is a small batch of three episodes in two domains with a tool
// call, a tool result and probe findings.
func Three() []Fixture {
	return []Fixture{
		{ID: "sim-a", Domain: "airline", TaskID: "7", Reward: 1, Reason: "You want to cancel reservation ABC123.", Known: "user id mia_li_3668",
			Messages: []Message{
				{Role: "assistant", Content: "Hi! How can I help you today?"},
				{Role: "user", Content: "Hi, I am mia_li_3668 and I want to cancel ABC123."},
				{Role: "assistant", Content: "Let me look.", Calls: []Call{{"get_reservation_details", `{"reservation_id": "ABC123"}`}}},
				{Role: "tool", Requestor: "assistant", Content: `{"reservation_id": "ABC123", "status": "confirmed"}`},
				{Role: "assistant", Content: "Cancelled. Anything else?"},
				{Role: "user", Content: "No, thanks. ###STOP###"},
			},
			Probes: []Probe{{"P1", 1, "user id mia_li_3668 before the agent asked"}}},
		{ID: "sim-b", Domain: "retail", TaskID: "12", Reward: 0, Reason: "Return the lamp of order #W123.",
			Messages: []Message{
				{Role: "assistant", Content: "Hello, how can I help?"},
				{Role: "user", Content: "I want to return a lamp."},
				{Role: "assistant", Content: "Which order?"},
				{Role: "user", Content: "Order #W999. ###STOP###"},
			}},
		{ID: "sim-c", Domain: "telecom", TaskID: "[mobile_data]", Reward: 0, Reason: "Your mobile data does not work.",
			Messages: []Message{
				{Role: "assistant", Content: "Hi, what seems to be the problem?"},
				{Role: "user", Content: "My data is off. I've turned off airplane mode.", Calls: nil},
				{Role: "assistant", Content: "Please toggle airplane mode."},
				{Role: "user", Content: "", Calls: []Call{{"toggle_airplane_mode", "{}"}}},
				{Role: "tool", Requestor: "user", Content: "Airplane mode is now OFF."},
				{Role: "user", Content: "Done, still nothing."},
			},
			Probes: []Probe{{"P5", 1, "I've turned off airplane mode"}, {"P3", 1, "airplane mode"}}},
	}
}
