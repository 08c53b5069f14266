package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// tau2SharedFile is the shared result file the dir-format and ticks-only
// copies are made from: telecom, so that users make tool calls too.
const tau2SharedFile = "results/telecom__agent-gpt-4o__user-gpt-4o__20tasks.json"

// readTau2Top reads a result file's top-level values and its simulations.
func readTau2Top(t *testing.T, path string) (map[string]json.RawMessage, []json.RawMessage) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	var sims []json.RawMessage
	if err := json.Unmarshal(top["simulations"], &sims); err != nil {
		t.Fatal(err)
	}
	return top, sims
}

// writeDirCopy writes the run of a monolithic file in tau2's dir format
// under dir: results.json without simulations but with a
// simulation_index, and each simulation, byte for byte, in
// simulations/<id>.json. It returns the path of results.json.
func writeDirCopy(t *testing.T, mono, dir string) string {
	t.Helper()
	top, sims := readTau2Top(t, mono)
	if err := os.MkdirAll(filepath.Join(dir, "simulations"), 0o755); err != nil {
		t.Fatal(err)
	}
	var index []map[string]any
	for _, raw := range sims {
		var s struct {
			ID     string          `json:"id"`
			TaskID json.RawMessage `json:"task_id"`
			Trial  *int            `json:"trial"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		index = append(index, map[string]any{"id": s.ID, "task_id": s.TaskID, "trial": s.Trial})
		if err := os.WriteFile(filepath.Join(dir, "simulations", s.ID+".json"), append(bytes.Clone(raw), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	delete(top, "simulations")
	b, _ := json.Marshal(index)
	top["simulation_index"] = b
	meta, _ := json.MarshalIndent(top, "", "  ")
	p := filepath.Join(dir, "results.json")
	if err := os.WriteFile(p, meta, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ticksOf turns a simulation's messages into full-duplex ticks as tau2's
// Tick holds them: an agent message is a tick's agent_chunk with its
// tool calls, the agent's tool results join that tick, a user message
// starts a tick of its own with the user's tool calls and results. The
// messages' timestamps are kept, so tau2's flattening (sorted by
// timestamp) gives them back in order.
func ticksOf(t *testing.T, msgs []map[string]any) []map[string]any {
	t.Helper()
	var ticks []map[string]any
	var cur map[string]any
	newTick := func(ts any) {
		cur = map[string]any{"tick_id": len(ticks) * 3, "timestamp": ts, "agent_tool_calls": []any{}, "user_tool_calls": []any{},
			"agent_tool_results": []any{}, "user_tool_results": []any{}}
		ticks = append(ticks, cur)
	}
	chunk := func(m map[string]any) map[string]any {
		c := map[string]any{"role": m["role"], "content": m["content"], "timestamp": m["timestamp"], "cost": m["cost"], "usage": m["usage"], "chunk_id": 0}
		return c
	}
	calls := func(m map[string]any) any {
		if m["tool_calls"] == nil {
			return []any{}
		}
		return m["tool_calls"]
	}
	for i, m := range msgs {
		switch m["role"] {
		case "assistant":
			newTick(m["timestamp"])
			cur["agent_chunk"], cur["agent_tool_calls"] = chunk(m), calls(m)
		case "user":
			newTick(m["timestamp"])
			cur["user_chunk"], cur["user_tool_calls"] = chunk(m), calls(m)
		case "tool":
			key := "agent_tool_results"
			if m["requestor"] == "user" {
				key = "user_tool_results"
			}
			if cur == nil || (key == "agent_tool_results") != (cur["user_chunk"] == nil) {
				newTick(m["timestamp"])
			}
			cur[key] = append(cur[key].([]any), m)
		default:
			t.Fatalf("message %d: role %v has no place in a tick", i, m["role"])
		}
	}
	return ticks
}

// writeTicksCopy writes a copy of a monolithic file whose simulations have
// null messages and their conversation in ticks.
func writeTicksCopy(t *testing.T, mono, path string) {
	t.Helper()
	top, sims := readTau2Top(t, mono)
	out := make([]json.RawMessage, len(sims))
	for i, raw := range sims {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var s map[string]any
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		var msgs []map[string]any
		b, _ := json.Marshal(s["messages"])
		d2 := json.NewDecoder(bytes.NewReader(b))
		d2.UseNumber()
		if err := d2.Decode(&msgs); err != nil {
			t.Fatal(err)
		}
		for j := 1; j < len(msgs); j++ {
			if msgs[j-1]["timestamp"].(string) > msgs[j]["timestamp"].(string) {
				t.Fatalf("simulation %d: message timestamps out of order: the ticks copy would not be the same conversation", i)
			}
		}
		s["messages"], s["ticks"] = nil, ticksOf(t, msgs)
		out[i], _ = json.Marshal(s)
	}
	top["simulations"], _ = json.Marshal(out)
	data, _ := json.MarshalIndent(top, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// tableDump is a table's rows, sorted, less the columns named.
func tableDump(t *testing.T, ws *queries.Workspace, table string, exclude ...string) []string {
	t.Helper()
	q := "SELECT * FROM " + table + " ORDER BY ALL"
	if len(exclude) > 0 {
		q = "SELECT * EXCLUDE (" + strings.Join(exclude, ", ") + ") FROM " + table + " ORDER BY ALL"
	}
	rows, err := ws.Conn().QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, v := range vals {
			fmt.Fprintf(&b, "%s=%v|", cols[i], v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// episodeDump is what a workspace holds of episodes, less where they were
// read from.
func episodeDump(t *testing.T, ws *queries.Workspace) map[string][]string {
	return map[string][]string{
		"ep_runs":             tableDump(t, ws, "ep_runs", "source_file"),
		"ep_tasks":            tableDump(t, ws, "ep_tasks", "source_file"),
		"ep_episodes":         tableDump(t, ws, "ep_episodes", "source_file", "content_hash"),
		"ep_messages":         tableDump(t, ws, "ep_messages", "tick_id"),
		"ep_tool_calls":       tableDump(t, ws, "ep_tool_calls"),
		"ep_checks":           tableDump(t, ws, "ep_checks"),
		"ep_probe_findings":   tableDump(t, ws, "ep_probe_findings"),
		"ep_probe_applicable": tableDump(t, ws, "ep_probe_applicable"),
	}
}

func ingestOne(t *testing.T, path string) (*queries.Workspace, Stats) {
	t.Helper()
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{path}, Options{NewProber: testProber})
	if err != nil {
		t.Fatalf("ingest %s: %v %v", path, err, st.Errors)
	}
	return ws, st
}

// TestTau2DirAndTicksCopiesMatchTheFile: a dir-format copy and a
// ticks-only copy of a shared result file ingest to the same runs, tasks,
// episodes, messages, tool calls, checks and probe findings as the file
// itself; the ticks copy's messages keep their tick, the dir copy's
// episodes their content hash (their bytes are the file's).
func TestTau2DirAndTicksCopiesMatchTheFile(t *testing.T) {
	mono := filepath.Join(corpusDir(t, "tau2"), tau2SharedFile)
	tmp := t.TempDir()
	meta := writeDirCopy(t, mono, filepath.Join(tmp, "run"))
	ticks := filepath.Join(tmp, "ticks.json")
	writeTicksCopy(t, mono, ticks)

	wsMono, stMono := ingestOne(t, mono)
	if stMono.Episodes != 20 {
		t.Fatalf("monolithic file: %d episodes, want 20", stMono.Episodes)
	}
	want := episodeDump(t, wsMono)
	if len(want["ep_probe_findings"]) == 0 || len(want["ep_tool_calls"]) == 0 {
		t.Fatalf("the file gives %d findings, %d tool calls: too little to compare", len(want["ep_probe_findings"]), len(want["ep_tool_calls"]))
	}
	for name, path := range map[string]string{"dir (folder)": filepath.Dir(meta), "dir (results.json)": meta, "ticks": ticks} {
		t.Run(name, func(t *testing.T) {
			ws, st := ingestOne(t, path)
			if st.Files != 1 || st.Episodes != 20 || len(st.EpisodeFiles) != 1 || st.EpisodeFiles[0].Episodes != 20 {
				t.Errorf("files %d, episodes %d, file stats %+v; want one run of 20", st.Files, st.Episodes, st.EpisodeFiles)
			}
			got := episodeDump(t, ws)
			for table, rows := range want {
				g := got[table]
				if len(g) != len(rows) {
					t.Errorf("%s: %d rows, the file gives %d", table, len(g), len(rows))
					continue
				}
				for i := range rows {
					if g[i] != rows[i] {
						t.Errorf("%s row %d:\n got  %s\n want %s", table, i, g[i], rows[i])
						break
					}
				}
			}
			withTick := count(t, ws, `SELECT count(*) FROM ep_messages WHERE tick_id IS NOT NULL`)
			if name == "ticks" {
				if n := count(t, ws, `SELECT count(*) FROM ep_messages`); withTick != n {
					t.Errorf("%d of %d messages keep their tick", withTick, n)
				}
			} else {
				if withTick != 0 {
					t.Errorf("%d turn-based messages have a tick", withTick)
				}
				if d := tableDump(t, ws, "ep_episodes"); len(d) != 20 || count(t, ws, `SELECT count(*) FROM ep_episodes WHERE source_file = ?`, meta) != 20 {
					t.Errorf("dir run's episodes not all of %s", meta)
				}
				if a, b := tableDump(t, ws, "(SELECT simulation_id, content_hash FROM ep_episodes)"), tableDump(t, wsMono, "(SELECT simulation_id, content_hash FROM ep_episodes)"); strings.Join(a, "\n") != strings.Join(b, "\n") {
					t.Errorf("content hashes differ from the file's")
				}
			}
		})
	}
}

// TestTau2DirIndexCheck: a simulation file the index lists but the folder
// lacks, and one the folder holds but the index does not list, refuse
// the run, naming both files; nothing of the run is stored.
func TestTau2DirIndexCheck(t *testing.T) {
	mono := filepath.Join(corpusDir(t, "tau2"), tau2SharedFile)
	meta := writeDirCopy(t, mono, filepath.Join(t.TempDir(), "run"))
	sims := filepath.Join(filepath.Dir(meta), "simulations")
	entries, err := os.ReadDir(sims)
	if err != nil || len(entries) != 20 {
		t.Fatalf("simulations: %d files, %v", len(entries), err)
	}
	missing := filepath.Join(sims, entries[3].Name())
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(sims, "not-in-the-index.json")
	if err := os.WriteFile(extra, []byte(`{"id": "not-in-the-index", "task_id": "x", "messages": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{filepath.Dir(meta)}, Options{NewProber: testProber})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	if st.ErrorCount != 1 || len(st.Errors) != 1 {
		t.Fatalf("errors %v, want one", st.Errors)
	}
	e := st.Errors[0]
	for _, want := range []string{meta + ":", "missing: " + strconv.Quote(missing), "not in the index: " + strconv.Quote(extra)} {
		if !strings.Contains(e, want) {
			t.Errorf("error %q does not say %q", e, want)
		}
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_episodes`); n != 0 {
		t.Errorf("%d episodes stored of a refused run", n)
	}
}

// TestTau2TaskFolder: `ingest --tasks` on tau2's own task folder reads
// tasks.json, stores split_tasks.json as the domain's task splits and
// policy.md as its policy (with the hash a result file's policy text of
// the same words gets), and passes its other files by, with no error.
func TestTau2TaskFolder(t *testing.T) {
	dir := filepath.Join("testdata", "tau2_task_folder", "airline")
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{Tasks: true})
	if err != nil {
		t.Fatalf("%v %v", err, st.Errors)
	}
	if st.Files != 3 || st.FilesSkipped != 3 || st.Tasks != 2 || st.ErrorCount != 0 {
		t.Errorf("files %d read, %d passed by, %d tasks, %d errors; want 3, 3, 2, 0", st.Files, st.FilesSkipped, st.Tasks, st.ErrorCount)
	}
	got := strings.Join(tableDump(t, ws, "(SELECT domain, split, task_id FROM ep_task_splits)"), "\n")
	want := strings.Join([]string{
		"domain=airline|split=base|task_id=0|", "domain=airline|split=base|task_id=1|",
		"domain=airline|split=test|task_id=1|", "domain=airline|split=train|task_id=0|"}, "\n")
	if got != want {
		t.Errorf("splits:\n%s\nwant\n%s", got, want)
	}
	policy, _ := os.ReadFile(filepath.Join(dir, "policy.md"))
	var text, h string
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT policy, policy_sha FROM ep_domains WHERE domain = 'airline'`).Scan(&text, &h); err != nil {
		t.Fatal(err)
	}
	if text != string(policy) || h != sha(policy) {
		t.Errorf("policy %q (%s)", text, h)
	}
	// Read again: the domain's splits and policy are replaced, not doubled.
	if _, err := Run(context.Background(), ws, []string{dir}, Options{Tasks: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_task_splits`); n != 4 {
		t.Errorf("%d split rows after a second read, want 4", n)
	}
}

// TestTau2DirIndexIDsQuoted: ids of a results.json index are data: one
// holding a newline and a NUL is named quoted (it cannot forge a line of
// ub's messages or reach the terminal), and an index of 100,000 ids with
// no file names the first few and counts the rest, in one short line.
func TestTau2DirIndexIDsQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(filepath.Join(dir, "simulations"), 0o755); err != nil {
		t.Fatal(err)
	}
	var idx strings.Builder
	idx.WriteString(`{"id": "evil\nub: all is well\u0000", "task_id": "5", "trial": 0}`)
	for i := 1; i < 100000; i++ {
		fmt.Fprintf(&idx, `, {"id": "sim-%06d", "task_id": "5", "trial": 0}`, i)
	}
	results := `{"timestamp": "2025-01-03T00:00:00",
 "info": {"user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"}, "agent_info": {"implementation": "llm_agent", "llm": "gpt-4o"}, "environment_info": {"domain_name": "retail"}},
 "tasks": [{"id": "5"}],
 "simulation_index": [` + idx.String() + `]}`
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte(results), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{})
	if !errors.Is(err, ErrBadInput) || len(st.Errors) != 1 {
		t.Fatalf("err = %v, errors %d; want one bad-input error", err, len(st.Errors))
	}
	e := st.Errors[0]
	if strings.ContainsAny(e, "\n\x00") {
		t.Errorf("the error holds a raw newline or NUL: %q", e)
	}
	for _, want := range []string{`evil\nub: all is well\x00.json"`, `sim-000004.json" and 99,995 more`} {
		if !strings.Contains(e, want) {
			t.Errorf("error %q does not say %s", e, want)
		}
	}
	if len(e) > 1000 {
		t.Errorf("the error is %d bytes long: want one short line", len(e))
	}
}

// TestPolicyNotUTF8NamesItsByte: a policy file that is not valid UTF-8 is
// one error naming its line and the first bad byte of that line, and no
// file.
func TestPolicyNotUTF8NamesItsByte(t *testing.T) {
	var c epCollect
	// Line 2 is "ok \xc3(" : 0xc3 opens a two-byte character that "(" does
	// not continue, at byte 4 of the line.
	if err := ParsePolicy("domains/airline/policy.md", strings.NewReader("# Policy\nok \xc3( here\nmore\n"), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.errs) != 1 || len(c.files) != 0 {
		t.Fatalf("%d errors, %d files: want one error and no file", len(c.errs), len(c.files))
	}
	if got, want := c.errs[0].Error(), "domains/airline/policy.md:2: policy: invalid UTF-8 (byte 4)"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}
