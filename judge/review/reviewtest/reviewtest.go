// Package reviewtest writes small tau2 episodes straight into a workspace's
// ep_* tables, for tests of the review workbench (the real ingest is
// ub ingest's tau2 reader).
package reviewtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

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

// Episode is one fixture episode; its task and run are made from it.
type Episode struct {
	ID, Domain, TaskID string
	Reward             float64
	Reason, Known      string // the task's blueprint
	Messages           []Message
	Probes             []Probe
}

// Insert writes the episodes, one task and one run each, with the
// appender (turn_idx = the message's position), in one transaction.
func Insert(ctx context.Context, ws *queries.Workspace, eps []Episode) error {
	null := func(s string) driver.Value {
		if s == "" {
			return nil
		}
		return s
	}
	return ws.InTx(ctx, func(_ *sql.Conn) error {
		put := func(table string, rows [][]driver.Value) error {
			a, err := ws.Appender(ctx, table)
			if err != nil {
				return err
			}
			for _, r := range rows {
				if err := a.AppendRow(r...); err != nil {
					a.Close()
					return fmt.Errorf("%s: %w", table, err)
				}
			}
			return a.Close()
		}
		var runs, tasks, episodes, msgs, calls, probes [][]driver.Value
		for i, e := range eps {
			run, task := "run-"+e.ID, "task-"+e.ID
			runs = append(runs, []driver.Value{run, "fixture.json", "tau2", e.Domain, "abc123", "2.x", nil,
				"user_simulator", "gpt-4.1", nil, "user_simulator:gpt-4.1@t0", "llm_agent", "gpt-4.1", nil, "llm_agent:gpt-4.1@t0",
				"Play the customer.", nil, int32(100), int64(1)})
			tasks = append(tasks, []driver.Value{task, e.Domain, e.TaskID, "tau2", null(e.Reason), null(e.Known), nil, nil, nil, nil, nil, nil, nil,
				nil, nil, nil, nil, "{}", "fixture.json"})
			episodes = append(episodes, []driver.Value{e.ID, run, "fixture.json", int32(i), "hash-" + e.ID, e.Domain, e.TaskID, task,
				int32(0), int64(1), e.Reward, nil, nil, nil, "user_stop", 0.01, 0.02, nil, nil, 12.5, nil, int32(len(e.Messages)), nil})
			for j, m := range e.Messages {
				msgs = append(msgs, []driver.Value{e.ID, int32(j), int32(j), m.Role, null(m.Content), nil, null(m.Requestor), nil,
					int32(len(m.Calls)), nil, nil, nil, nil})
				for k, c := range m.Calls {
					req := "assistant"
					if m.Role == "user" {
						req = "user"
					}
					calls = append(calls, []driver.Value{e.ID, int32(j), int32(k), fmt.Sprintf("call-%d-%d", j, k), req, c.Name, null(c.Arguments)})
				}
			}
			for _, p := range e.Probes {
				var turn driver.Value
				if p.Turn >= 0 {
					turn = int32(p.Turn)
				}
				probes = append(probes, []driver.Value{e.ID, p.Probe, turn, p.Evidence, nil})
			}
		}
		for _, t := range []struct {
			name string
			rows [][]driver.Value
		}{{"ep_runs", runs}, {"ep_tasks", tasks}, {"ep_episodes", episodes}, {"ep_messages", msgs}, {"ep_tool_calls", calls}, {"ep_probe_findings", probes}} {
			if len(t.rows) == 0 {
				continue
			}
			if err := put(t.name, t.rows); err != nil {
				return err
			}
		}
		return nil
	})
}

// Three is a small batch of three episodes in two domains with a tool
// call, a tool result and probe findings.
func Three() []Episode {
	return []Episode{
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
