package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/ub-bench/ub"
)

// sortedProbeMessages is what the probes read before they streamed: one
// query that joins each message with its calls and sorts them all.
const sortedProbeMessages = `WITH c AS (
    SELECT simulation_id, msg_idx,
           CAST(to_json(list({'id': call_id, 'name': name, 'arguments': arguments} ORDER BY call_idx)) AS VARCHAR) AS calls
    FROM ep_tool_calls
    GROUP BY simulation_id, msg_idx
)
SELECT m.simulation_id, m.idx, m.turn_idx, m.role, m.content, m.requestor, m.tool_call_id, c.calls
FROM ep_messages m
LEFT JOIN c ON c.simulation_id = m.simulation_id AND c.msg_idx = m.idx
WHERE m.simulation_id IN (SELECT simulation_id FROM ep_episodes)
ORDER BY m.simulation_id, m.idx`

// TestStreamProbeEpisodesStorageOrder: episodes whose rows are stored out
// of order, in pieces far apart (written by several transactions), with
// rows deleted between them, a message and a call of no stored episode, a
// call of no stored message, an episode with only a call and one with no
// rows: read a range of 1, 2, 3 or 1000 rowids at a time, every episode
// comes once, with its task key and exactly the messages and calls the
// sorting query gives (arguments as to_json writes them: 1.50 as 1.5),
// and after the tasks of 1, 2 or 16 steps at a time were given that hold
// its stored task and user actions (and no task of no stored episode).
func TestStreamProbeEpisodesStorageOrder(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	str := func(s string) *string { return &s }
	write := func(fn func(rw *RowWriter)) {
		t.Helper()
		err := ws.InTx(ctx, func(*sql.Conn) error {
			rw := NewRowWriter(ctx, ws)
			fn(rw)
			return rw.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	msg := func(rw *RowWriter, sim string, idx int, role string) {
		rw.EpMessage(sim, &ub.Message{Idx: idx, TurnIdx: 10 + idx, Role: role, Content: str(fmt.Sprintf("%s/%d", sim, idx))})
	}
	call := func(rw *RowWriter, sim string, msgIdx, callIdx int, args string) {
		rw.EpToolCall(sim, ub.ToolCall{MsgIdx: msgIdx, CallIdx: callIdx, CallID: str(fmt.Sprintf("c%d", callIdx)),
			Requestor: "user", Name: "f", Arguments: json.RawMessage(args)})
	}
	write(func(rw *RowWriter) {
		for i, sim := range []string{"e1", "e2", "e3", "e4", "e5", "e6"} {
			var key *string
			if i%2 == 0 {
				key = str("task-" + sim)
			}
			rw.Episode(&ub.Episode{SimulationID: sim, RunID: "r", SourceFile: "f.json", SourceIndex: i, ContentHash: sim,
				Domain: "airline", TaskID: "1", TaskKey: key})
		}
		for _, key := range []string{"task-e1", "task-e5", "task-zz"} {
			rw.EpTask(&ub.Task{Key: key, Domain: "airline", TaskID: key, Format: "tau2", ReasonForCall: str("why " + key),
				Raw: json.RawMessage(`{}`), SourceFile: "tasks.json"})
			rw.EpTaskAction(key, 0, ub.TaskAction{Requestor: "user", Name: "toggle_" + key})
			rw.EpTaskAction(key, 1, ub.TaskAction{Requestor: "assistant", Name: "agent_" + key})
		}
		msg(rw, "e1", 2, "user")
		msg(rw, "e2", 0, "user")
		msg(rw, "e3", 1, "assistant")
		msg(rw, "e1", 0, "assistant")
		call(rw, "e1", 0, 1, `{"b": 1.50}`)
		call(rw, "e3", 1, 0, `{"x": "\u003c"}`)
	})
	write(func(rw *RowWriter) {
		msg(rw, "zz", 0, "user") // no such episode
		msg(rw, "e2", 1, "assistant")
		msg(rw, "e1", 1, "user")
		call(rw, "e2", 5, 0, `{}`) // no message 5
		call(rw, "zz", 0, 0, `{}`)
		call(rw, "e4", 0, 0, `[1, 2]`) // e4 has no messages
		msg(rw, "e3", 0, "user")
		call(rw, "e1", 0, 0, `null`)
	})
	if _, err := ws.Conn().ExecContext(ctx, `DELETE FROM ep_messages WHERE simulation_id = 'e2' AND idx = 1`); err != nil {
		t.Fatal(err)
	}
	write(func(rw *RowWriter) {
		msg(rw, "e6", 1, "user")
		msg(rw, "e6", 0, "assistant")
		call(rw, "e3", 1, 1, `{"y": [1.0, true]}`)
	})

	want := map[string][]ProbeMessageRow{}
	rows, err := ws.Conn().QueryContext(ctx, sortedProbeMessages)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m ProbeMessageRow
		var calls *string
		if err := rows.Scan(&m.SimulationID, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolCallID, &calls); err != nil {
			t.Fatal(err)
		}
		if calls != nil {
			if err := json.Unmarshal([]byte(*calls), &m.Calls); err != nil {
				t.Fatal(err)
			}
		}
		want[m.SimulationID] = append(want[m.SimulationID], m)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(want["e1"][0].Calls[1].Arguments); got != `{"b":1.5}` {
		t.Fatalf("the sorting query gives e1's second call %s, want {\"b\":1.5}", got)
	}
	wantKeys := map[string]string{"e1": "task-e1", "e2": "", "e3": "task-e3", "e4": "", "e5": "task-e5", "e6": ""}
	for _, n := range []int64{1, 2, 3, 1000} {
		for _, window := range []int64{1, 2, 16} {
			got := map[string][]ProbeMessageRow{}
			var order []string
			given := map[string]string{} // task key -> its user action, as last given
			tasks := func(ts []ProbeTaskRow, acts []ProbeActionRow) error {
				given = map[string]string{}
				for _, tk := range ts {
					given[tk.TaskKey] = ""
				}
				for _, a := range acts {
					if _, ok := given[a.TaskKey]; !ok {
						t.Errorf("range %d, window %d: action %s of a task not given", n, window, a.Name)
					}
					given[a.TaskKey] = a.Name
				}
				if _, ok := given["task-zz"]; ok {
					t.Errorf("range %d, window %d: task-zz given, which no stored episode has", n, window)
				}
				return nil
			}
			err := ws.InTx(ctx, func(c *sql.Conn) error {
				return streamProbeEpisodes(ctx, c, n, window, tasks, func(ref ProbeEpisodeRef, msgs []ProbeMessageRow) error {
					if _, dup := got[ref.SimulationID]; dup {
						t.Errorf("range %d: %s came twice", n, ref.SimulationID)
					}
					key := ""
					if ref.TaskKey != nil {
						key = *ref.TaskKey
					}
					if key != wantKeys[ref.SimulationID] {
						t.Errorf("range %d: %s has task key %q, want %q", n, ref.SimulationID, key, wantKeys[ref.SimulationID])
					}
					if key == "task-e1" || key == "task-e5" {
						if a, ok := given[key]; !ok || a != "toggle_"+key {
							t.Errorf("range %d, window %d: %s came with its task %s given %v, user action %q", n, window, ref.SimulationID, key, ok, a)
						}
					}
					got[ref.SimulationID] = msgs
					order = append(order, ref.SimulationID)
					return nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(order) != len(wantKeys) {
				t.Errorf("range %d: episodes %v, want the 6 stored", n, order)
			}
			for sim := range wantKeys {
				if !reflect.DeepEqual(got[sim], want[sim]) {
					t.Errorf("range %d: %s:\n got  %+v\n want %+v", n, sim, got[sim], want[sim])
				}
			}
		}
	}
}
