package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const tau2Small = `{
  "timestamp": "2025-01-01T00:00:00",
  "info": {"git_commit": "abc", "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1", "llm_args": {"temperature": 0.0}},
           "agent_info": {"implementation": "llm_agent", "llm": "gpt-4o", "llm_args": {"temperature": 0.5, "api_key": "sk-x"}},
           "environment_info": {"domain_name": "airline", "policy": "p"}},
  "tasks": [{"id": "0", "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "r", "known_info": "You are mia_li_3668.", "task_instructions": "t"}},
             "evaluation_criteria": {"actions": [{"action_id": "a0", "name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}], "reward_basis": ["DB"]}}],
  "simulations": [
    {"id": "s1", "task_id": "0", "trial": 0, "user_cost": 0.01, "reward_info": {"reward": 1.0},
     "messages": [{"role": "assistant", "content": "Hi!", "turn_idx": 0}, {"role": "user", "content": "I am mia_li_3668", "turn_idx": 1, "usage": {"prompt_tokens": 10, "completion_tokens": 2}}]},
    {"id": "s2", "task_id": "0", "messages": "not a list"},
    {"task_id": "0", "messages": []},
    {"id": "s4", "task_id": "0", "unknown_field": {"x": 1},
     "messages": [{"role": "user", "content": "hello", "is_audio": false}]}
  ]
}`

// TestTau2BadSimulationsKeepTheRest: a simulation with a mistyped field and
// one without an id are reported with file, line, index and id; the other two
// land; unknown fields are ignored; identity names drop credentials.
func TestTau2BadSimulationsKeepTheRest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "airline__agent-x__user-y.json")
	if err := os.WriteFile(p, []byte(tau2Small), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	if st.Episodes != 2 || st.ErrorCount != 2 {
		t.Fatalf("episodes %d, errors %d (%v); want 2 and 2", st.Episodes, st.ErrorCount, st.Errors)
	}
	want := []string{p + ":11: simulation 1 (id s2): ", p + ":12: simulation 2: missing \"id\""}
	for i, w := range want {
		if !strings.HasPrefix(st.Errors[i], w) {
			t.Errorf("error %d = %q, want prefix %q", i, st.Errors[i], w)
		}
	}
	var sim, agent string
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT DISTINCT user_sim, agent FROM episodes`).Scan(&sim, &agent); err != nil {
		t.Fatal(err)
	}
	if sim != "user_simulator:gpt-4.1@t0" || agent != "llm_agent:gpt-4o@t0.5" {
		t.Errorf("identities %q, %q", sim, agent)
	}
	// Recorded cost 0.01 > 0 is used as is and not estimated; s4 has none: unknown.
	var cost *float64
	var est *bool
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT user_cost, cost_estimated FROM episodes WHERE simulation_id = 's1'`).Scan(&cost, &est); err != nil {
		t.Fatal(err)
	}
	if cost == nil || *cost != 0.01 || est == nil || *est {
		t.Errorf("s1 cost %v estimated %v; want 0.01, false", cost, est)
	}
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT user_cost FROM episodes WHERE simulation_id = 's4'`).Scan(&cost); err != nil {
		t.Fatal(err)
	}
	if cost != nil {
		t.Errorf("s4 cost %v, want unknown (NULL)", *cost)
	}
}

// TestTau2InvalidJSONIsOneError: a cut-off file is one error naming its line.
func TestTau2InvalidJSONIsOneError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	if err := os.WriteFile(p, []byte(tau2Small[:len(tau2Small)-200]), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	st, _ := Run(context.Background(), ws, []string{p}, Options{NewProber: testProber})
	if st.ErrorCount != 1 || st.Episodes != 0 || !strings.HasPrefix(st.Errors[0], p+":") || !strings.Contains(st.Errors[0], "invalid JSON") {
		t.Errorf("errors %v, episodes %d; want one invalid-JSON error and none", st.Errors, st.Episodes)
	}
}

// TestPricesEstimateCost: with a dated price table, a simulation without a
// recorded cost gets tokens x price, marked estimated. s1 records 0.01;
// a copy of it without user_cost: 10 tokens in x $2/M + 2 out x $8/M
// = 0.00002 + 0.000016 = 0.000036.
func TestPricesEstimateCost(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.json")
	src := strings.Replace(tau2Small, `"user_cost": 0.01, `, "", 1)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pr := filepath.Join(dir, "prices.toml")
	if err := os.WriteFile(pr, []byte("read_on = \"2025-08-01\"\n[models.\"gpt-4.1\"]\nin = 2.0\nout = 8.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := memWorkspace(t)
	if _, err := StorePrices(context.Background(), ws, pr); err != nil {
		t.Fatal(err)
	}
	Run(context.Background(), ws, []string{p}, Options{NewProber: testProber})
	var cost float64
	var est bool
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT user_cost, cost_estimated FROM episodes WHERE simulation_id = 's1'`).Scan(&cost, &est); err != nil {
		t.Fatal(err)
	}
	if cost < 0.000036-1e-12 || cost > 0.000036+1e-12 || !est {
		t.Errorf("cost %g estimated %v; want 0.000036, true", cost, est)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[models.\"m\"]\nin = 1\nout = \n"), 0o644)
	if _, err := ReadPrices(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":3:") {
		t.Errorf("bad price file: %v, want %s:3: ...", err, bad)
	}
	nodate := filepath.Join(dir, "nodate.toml")
	os.WriteFile(nodate, []byte("[models.\"m\"]\nin = 1\nout = 2\n"), 0o644)
	if _, err := ReadPrices(nodate); err == nil || !strings.Contains(err.Error(), "read_on") {
		t.Errorf("price file without a date: %v", err)
	}
}

// TestTau2TaskCopiedFromTheRun: a task the run made before from the same
// JSON (every result file of a domain embeds the same tasks) is a copy
// equal to one made afresh, with its own file as source; what a file
// changes in its task (its domain and key, filled from the run) reaches
// neither the copy kept nor the next file's.
func TestTau2TaskCopiedFromTheRun(t *testing.T) {
	raw := json.RawMessage(`{"id": "0", "user_scenario": {"instructions": {"domain": "airline", "reason_for_call": "r", "known_info": "k", "task_instructions": "t"}},
		"evaluation_criteria": {"actions": [{"action_id": "a0", "name": "get_user_details", "arguments": {"user_id": "mia_li_3668"}}]}}`)
	p := &tau2File{path: "a.json", key: TaskKey, seen: seenTasks{}}
	first, err := p.task(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	first.Domain, first.Key = "changed", "changed"
	p.path = "b.json"
	second, err := p.task(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := tau2Task(raw, "", "b.json", TaskKey, false)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || !reflect.DeepEqual(second, want) {
		t.Errorf("second file's task %+v, want %+v", second, want)
	}
	if second.SourceFile != "b.json" || second.Domain != "airline" || second.Key != TaskKey("airline", "0", raw) {
		t.Errorf("second file's task: source %q domain %q key %q", second.SourceFile, second.Domain, second.Key)
	}
	if n := len(p.seen.of(false, "")); n != 1 {
		t.Errorf("%d tasks kept, want 1", n)
	}
	// Another domain is another task.
	other, err := p.task(raw, "retail")
	if err != nil {
		t.Fatal(err)
	}
	if other.Domain != "retail" || len(p.seen) != 2 {
		t.Errorf("task for domain retail: domain %q, %d domains kept", other.Domain, len(p.seen))
	}
}
