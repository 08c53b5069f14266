package ingest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// passes are the episode parsers on one stream, by format.
var passes = map[string]func(*jsonStream, EpisodeSink) error{
	FormatTau2: parseTau2, FormatTau1: parseTau1, "tasks": parseTaskFile,
}

// readPasses reads in with pass twice: in the exact pass alone and in the
// fast pass alone; fastOK says the fast pass met no error.
func readPasses(t *testing.T, pass func(*jsonStream, EpisodeSink) error, in []byte) (exact epCollect, fast []*EpisodeFile, fastOK bool) {
	t.Helper()
	if err := pass(newJSONStream("f.json", bytes.NewReader(in)), &exact); err != nil {
		t.Fatal(err)
	}
	fs := &fastSink{sink: &epCollect{}}
	err := pass(newFastStream("f.json", bytes.NewReader(in)), fs)
	return exact, fs.files, err == nil && !fs.failed
}

// tau2Good is tau2Small without its two bad simulations.
func tau2Good() string {
	return strings.NewReplacer(`{"id": "s2", "task_id": "0", "messages": "not a list"},`, "",
		`{"task_id": "0", "messages": []},`, "").Replace(tau2Small)
}

// checkFastAgrees fails when the fast pass accepted in and read it other
// than the exact pass did (or the exact pass found an error in it).
func checkFastAgrees(t *testing.T, name string, pass func(*jsonStream, EpisodeSink) error, in []byte) (fastOK bool) {
	t.Helper()
	exact, fast, ok := readPasses(t, pass, in)
	if !ok {
		return false
	}
	if len(exact.errs) > 0 {
		t.Errorf("%s: the fast pass accepted what the exact pass reports: %v", name, exact.errs[0])
	}
	if !reflect.DeepEqual(fast, exact.files) {
		t.Errorf("%s: the fast pass read other files than the exact pass", name)
		for i := range min(len(fast), len(exact.files)) {
			for j := range min(len(fast[i].Episodes), len(exact.files[i].Episodes)) {
				if f, e := fast[i].Episodes[j], exact.files[i].Episodes[j]; !reflect.DeepEqual(f, e) {
					t.Logf("episode %d:\n fast  %+v\n exact %+v", j, f, e)
				}
			}
		}
	}
	return true
}

// TestFastPassAgrees: what the fast pass (encoding/json/v2 in
// encoding/json's semantics) accepts, it reads exactly as the exact pass
// (encoding/json) does, on inputs where the two libraries could differ;
// where they would differ it fails, and the file is read exactly.
func TestFastPassAgrees(t *testing.T) {
	good := tau2Good()
	// sim adds a simulation to good.
	sim := func(s string) string {
		return strings.Replace(good, `"simulations": [`, `"simulations": [`+s+",", 1)
	}
	cases := []struct {
		name, format, in string
		fast             bool // the fast pass accepts it (else it fails and the exact pass reads it)
	}{
		{"tau2Small", FormatTau2, tau2Small, false}, // it holds two bad simulations
		{"good simulations", FormatTau2, good, true},
		// encoding/json matches names without regard to case.
		{"names in other case", FormatTau2, sim(`{"ID": "s3", "Task_Id": 0, "MESSAGES": [{"Role": "user", "Content": "x", "TURN_IDX": 2}]}`), true},
		// Names differing by '_' or '-' are other names (v2's case-insensitive
		// matching ignores them unless told otherwise).
		{"names without underscores", FormatTau2, sim(`{"id": "s3", "taskid": "7", "task-id": "8", "task_id": "0", "Turn-Idx": 9, "messages": [{"role": "user", "content": "x", "turnidx": 4}]}`), true},
		{"a name repeated in another case", FormatTau2, sim(`{"id": "s3", "task_id": "0", "Task_ID": "9", "messages": []}`), false},
		{"escaped names", FormatTau2, sim(`{"\u0069d": "s3", "task_id": "0", "messages": [{"role": "user", "c\u006fntent": "x"}]}`), true},
		// null: a RawMessage field gets the four bytes, a pointer nil,
		// a slice nil, a string "".
		{"nulls", FormatTau2, sim(`{"id": "s3", "task_id": "0", "trial": null, "reward_info": {"reward": null, "reward_basis": null, "action_checks": null},
			"user_only_review": null, "messages": [{"role": "user", "content": null, "tool_calls": null}, {"role": "assistant", "tool_calls": [{"name": "f", "arguments": null}]}]}`), true},
		// Every field of a simulation the fast pass reads without
		// reflection (decodeT2Sim), full-duplex ticks included.
		{"every simulation field", FormatTau2, sim(`{"id": "s3", "task_id": 7, "trial": -0, "seed": -12, "start_time": "t0", "timestamp": "t1",
			"duration": 1.5e2, "termination_reason": "user_stop", "agent_cost": null, "agent_usage": {"cost": 0.25, "other": [1]}, "user_cost": 0,
			"reward_info": {"reward": 1, "reward_basis": ["DB", "ACTION"], "reward_breakdown": {"DB": 1.0},
				"db_check": {"db_match": true, "db_reward": 1.0}, "env_assertions": [{"env_assertion": {"func_name": "f"}, "met": false, "reward": 0}],
				"action_checks": [{"action": {"name": "g", "requestor": "user"}, "action_match": true, "action_reward": 1}],
				"communicate_checks": [{"met": true}, "x"], "nl_assertions": [], "info": {"k": "v"}},
			"hallucination_retries_used": 2, "user_only_review": {"a": [1, {"b": null}]}, "review": "r", "mode": "voice",
			"ticks": [{"tick_id": 2, "timestamp": "b", "agent_chunk": {"content": "late", "cost": 0.5, "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
				"agent_tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": 1}, "requestor": "assistant"}],
				"agent_tool_results": [{"role": "tool", "id": "c1", "content": "ok", "error": false}]},
				{"tick_id": 1, "timestamp": "a", "user_chunk": {"content": "early", "is_audio": false}, "user_tool_calls": [], "user_tool_results": null}],
			"messages": null}`), true},
		{"a pointer and a slice of other JSON types", FormatTau2, sim(`{"id": "s3", "task_id": "0", "agent_usage": [], "messages": []}`), false},
		{"a null message", FormatTau2, sim(`{"id": "s3", "task_id": "0", "messages": [null]}`), false},
		{"a name folding to another (U+017F)", FormatTau2, sim(`{"id": "s3", "task_id": "0", "ſeed": 4, "messages": []}`), true},
		{"escapes", FormatTau2, sim(`{"id": "s3", "task_id": "0", "messages": [{"role": "user", "content": "caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t"}]}`), true},
		{"CRLF lines", FormatTau1, "[\r\n{\"task_id\": 0, \"traj\": [{\"role\": \"user\", \"content\": \"hi\"}]},\r\n\r\n {\"task_id\": 1,\r\n \"traj\": []}\r\n]\r\n", true},
		{"tau1", FormatTau1, `[{"task_id": 0, "trial": 0, "reward": 1.0, "traj": [{"role": "user", "content": "hi", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]}], "info": {"task": {"user_id": "a_b_123", "instruction": "x", "actions": [{"name": "f", "kwargs": {"a": [1, 2.5e3, -0, true]}}]}, "source": "user"}}]`, true},
		// A v1 episode's task and reward info are decoded in the fast
		// pass too; reward info that encoding/json reads in part (its
		// error ignored) sends the file to the exact pass.
		{"every tau1 field", FormatTau1, `[{"TASK_ID": "7", "trial": 2, "reward": 0.5, "info": {"task": {"user_id": "a_b_1", "instruction": "x", "actions": [{"name": "f", "kwargs": null}]},
			"source": "transfer", "user_cost": 0.01, "reward_info": null, "extra": [true]},
			"traj": [{"role": "assistant", "content": null, "tool_calls": [{"id": "c", "function": null}, {"function": {"name": "g", "arguments": "not json"}}, {"id": null, "function": {"Name": "h"}}]},
				{"role": "tool", "content": "r", "tool_call_id": "c"}, {"role": "user", "content": "é", "tool_calls": null}]}]`, true},
		{"tau1 tool call of another type", FormatTau1, `[{"task_id": 0, "traj": [{"role": "user", "tool_calls": [{"function": {"name": 1}}]}]}]`, false},
		{"tau1 reward info", FormatTau1, `[{"task_id": 0, "traj": [], "info": {"task": {"user_id": "u", "outputs": ["9"]}, "reward_info": {"reward": 1, "info": {"r_actions": 1.0, "outputs": {"9": true, "8": false}, "other": null}}}}]`, true},
		{"tau1 reward info without info", FormatTau1, `[{"task_id": 0, "traj": [], "info": {"reward_info": {"reward": 0}}}]`, true},
		{"tau1 reward info of another type", FormatTau1, `[{"task_id": 0, "traj": [], "info": {"reward_info": {"info": {"r_actions": "1", "outputs": {"9": true}}}}}]`, false},
		{"tasks", "tasks", `[{"id": "0", "user_scenario": {"instructions": "one string"}},
  {"id": 1, "evaluation_criteria": {"actions": [{"name": "a", "arguments": {"k": false}, "compare_args": null}], "env_assertions": [{"env_type": "user", "func_name": "f", "assert_value": true}]}}]`, true},
		// The fast pass fails on what the exact pass reports and on what
		// the two libraries might read otherwise (repeated names, invalid
		// UTF-8: it need not decide how encoding/json reads them).
		{"repeated name", FormatTau2, sim(`{"id": "s3", "id": "s5", "task_id": "0", "messages": []}`), false},
		{"lone surrogate", FormatTau2, sim(`{"id": "s3", "task_id": "0", "messages": [{"role": "user", "content": "\ud83d x"}]}`), false},
		{"invalid UTF-8", FormatTau2, sim("{\"id\": \"s3\", \"task_id\": \"0\", \"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}"), false},
		{"float into an int", FormatTau2, sim(`{"id": "s3", "task_id": "0", "trial": 1.0, "messages": []}`), false},
		{"exponent into an int", FormatTau2, sim(`{"id": "s3", "task_id": "0", "trial": 1e2, "messages": []}`), false},
		{"int overflow", FormatTau2, sim(`{"id": "s3", "task_id": "0", "seed": 99999999999999999999, "messages": []}`), false},
		{"byte order mark", FormatTau1, "\xef\xbb\xbf[]", false},
		{"trailing value", FormatTau1, `[] []`, false},
	}
	accepted := 0
	for _, c := range cases {
		in := []byte(c.in)
		ok := checkFastAgrees(t, c.name, passes[c.format], in)
		if c.fast != ok {
			t.Errorf("%s: the fast pass accepted it: %v, want %v", c.name, ok, c.fast)
		}
		if ok {
			accepted++
		}
		// Both passes together give what the exact pass gives.
		var both epCollect
		if err := episodeParsers[c.format]("f.json", bytes.NewReader(in), &both); err != nil {
			t.Fatal(err)
		}
		exact, _, _ := readPasses(t, passes[c.format], in)
		if !reflect.DeepEqual(both, exact) {
			t.Errorf("%s: read with both passes, not as the exact pass reads it:\n got  %v\n want %v", c.name, both.errs, exact.errs)
		}
	}
	if accepted < 4 {
		t.Errorf("the fast pass accepted %d inputs", accepted)
	}
}

// TestFastPassAgreesOnCorpus: on every episode file of corpus/tau2 the fast
// pass meets no error and reads what the exact pass reads.
func TestFastPassAgreesOnCorpus(t *testing.T) {
	root := corpusDir(t, "tau2")
	var paths []string
	for _, sub := range []string{"results", "tau_trait"} {
		m, _ := filepath.Glob(filepath.Join(root, sub, "*.json"))
		paths = append(paths, m...)
	}
	if len(paths) != 26 {
		t.Fatalf("%d files, want 26", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		format := DetectEpisodes(data[:min(len(data), headSize)])
		if !checkFastAgrees(t, filepath.Base(p), passes[format], data) {
			t.Errorf("%s: the fast pass failed", filepath.Base(p))
		}
	}
}

// TestRunRereadsOnlyFailedFiles: ub ingest reads an episode file once when
// the fast pass accepts it, and again from its start when it does not; the
// progress it reports counts each file's bytes once.
func TestRunRereadsOnlyFailedFiles(t *testing.T) {
	dir := t.TempDir()
	good := strings.NewReplacer(`"s1"`, `"g1"`, `"s4"`, `"g4"`).Replace(tau2Good())
	files := map[string]string{"airline__good.json": good, "airline__bad.json": tau2Small}
	var total int64
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		total += int64(len(src))
	}
	var done, max int64
	st, err := Run(context.Background(), memWorkspace(t), []string{dir}, Options{Progress: func(d, tot int64) {
		done, max = d, tot
	}})
	if err == nil || st.Episodes != 4 || st.ErrorCount != 2 {
		t.Fatalf("%d episodes, %d errors, %v; want 4 episodes (2 a file) and the bad file's 2 errors", st.Episodes, st.ErrorCount, err)
	}
	if done != total || max != total {
		t.Errorf("progress ended at %d of %d, want %d of %d", done, max, total, total)
	}
	// A reader that cannot be read again (a pipe) gets the exact pass
	// alone, with the same result.
	var piped, seek epCollect
	if err := ParseTau2("f.json", struct{ io.Reader }{strings.NewReader(tau2Small)}, &piped); err != nil {
		t.Fatal(err)
	}
	if err := ParseTau2("f.json", strings.NewReader(tau2Small), &seek); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(piped, seek) || len(piped.errs) != 2 {
		t.Errorf("piped: %d errors, %v; read again: %v", len(piped.errs), piped.errs, seek.errs)
	}
}

// TestEpisodesCheckpointedAtLastCommit: the last transaction of an ingest
// that wrote episodes commits as a checkpoint, so the write-ahead log does
// not hold them when the run returns; the settings it changed for that
// are DuckDB's defaults again after it.
func TestEpisodesCheckpointedAtLastCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "airline__x.json"), []byte(tau2Good()), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "w.duckdb")
	ws, err := queries.Open(ctx, db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	settings := func(ws *queries.Workspace) (s [2]string) {
		err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('checkpoint_threshold'), current_setting('disabled_compression_methods')").Scan(&s[0], &s[1])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := settings(ws)
	if st, err := Run(ctx, ws, []string{dir}, Options{NewProber: testProber}); err != nil || st.Episodes != 2 {
		t.Fatalf("%d episodes, %v", st.Episodes, err)
	}
	if fi, err := os.Stat(db + ".wal"); err == nil && fi.Size() > 0 {
		t.Errorf("the write-ahead log holds %d bytes after the run", fi.Size())
	}
	if after := settings(ws); after != before {
		t.Errorf("settings after the run %q, before %q", after, before)
	}
}
