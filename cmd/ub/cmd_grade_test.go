package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

// gradeWorkspace is fidelityWorkspace with rubrics and a conversation in
// every episode, and simulators, agents and models renamed to strings a
// test can look for in the grader's requests.
func gradeWorkspace(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "ub.duckdb")
	fidelityWorkspace(t, db)
	var rub strings.Builder
	for task := 1; task <= 4; task++ {
		fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-c1", "family": "disclosure", "mode": "volunteers_unasked_info", "quote": "Your user id is u_%d.", "quote_source": "known_info", "text": "No id before the agent asks."}`+"\n", task, task, task)
		fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-c2", "family": "goal_deviation", "mode": "accepts_forbidden_outcome", "quote": "You do not accept a fee.", "quote_source": "task_instructions", "text": "No fee accepted."}`+"\n", task, task)
	}
	rp := filepath.Join(dir, "r.jsonl")
	os.WriteFile(rp, []byte(rub.String()), 0o644)
	if code, _, errs := runUB(t, "--db", db, "rubrics", "import", rp); code != exitBadInput || !strings.Contains(errs, "has 2 criteria") {
		// 2 criteria per task: imported, with a warning, exit 0.
		if code != 0 {
			t.Fatalf("rubrics import: %d %s", code, errs)
		}
	}
	ctx := context.Background()
	ws, err := queries.Open(ctx, db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	stmts := []string{
		// fidelityWorkspace's messages give way to the conversation the
		// grader's requests are checked against.
		`DELETE FROM ep_messages`,
		`UPDATE ep_runs SET user_sim = 'SECRET-SIM-' || run_id, agent = 'SECRET-AGENT', user_model = 'secret-user-model', agent_model = 'secret-agent-model'`,
		`INSERT INTO ep_messages (simulation_id, idx, turn_idx, role, content, n_tool_calls)
		 SELECT simulation_id, 0, 0, 'assistant', 'Hello, how can I help?', 0 FROM ep_episodes
		 UNION ALL SELECT simulation_id, 1, 1, 'user', CASE WHEN simulation_id LIKE 'c%' THEN 'Hi, my id is u_' || task_id ELSE 'Hi, I want to change a flight.' END, 0 FROM ep_episodes
		 UNION ALL SELECT simulation_id, 2, 2, 'assistant', NULL, 1 FROM ep_episodes`,
		`INSERT INTO ep_tool_calls (simulation_id, msg_idx, call_idx, requestor, name, arguments) SELECT simulation_id, 2, 0, 'assistant', 'get_user', '{"id": "u"}' FROM ep_episodes`,
	}
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// TestGradeBlindAndStrict: ub grade sends one request per (episode,
// criterion), none naming the simulator, agent or their models; it stores
// parsed verdicts with their failing turn, keeps unparseable answers out,
// and a second run sends nothing.
func TestGradeBlindAndStrict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := gradeWorkspace(t, dir)
	var calls atomic.Int64
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		user := req.Messages[len(req.Messages)-1].Content
		answer := `{"verdict": "pass", "turn_idx": null, "reason": "kept"}`
		switch {
		case strings.Contains(user, "CRITERION a-3-c2"):
			answer = "The user passes, I think." // prose: unparseable
		case strings.Contains(user, "family disclosure") && strings.Contains(user, "[1] user: Hi, my id is"):
			answer = "```json\n{\"verdict\": \"fail\", \"turn_idx\": 1, \"reason\": \"id at [1] before asked\"}\n```"
		}
		out, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"g","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`, out)
	}))
	defer srv.Close()
	code, out, errs := runUB(t, "--db", db, "grade", "--grader", "mg", "--model", "g", "--base-url", srv.URL+"/v1", "--price-in", "1", "--price-out", "2")
	if code != 0 {
		t.Fatalf("grade: %d\n%s\n%s", code, out, errs)
	}
	// 12 episodes x 2 criteria = 24 pairs. Blind requests of the same
	// criterion on the same conversation are one request: dear's and
	// orch's episodes say the same, so 4 tasks x 2 criteria x 2 distinct
	// conversations = 16 calls, costing 16 x (100 x $1 + 20 x $2) / 1e6 =
	// $0.0022. The 3 episodes of task 3 get an unparseable c2 answer;
	// cheap's 4 episodes fail c1 at turn 1.
	if calls.Load() != 16 || !strings.Contains(out, "21 of 24 (episode, criterion) graded by mg") || !strings.Contains(out, "16 sent, 0 cached, 0 failed, $0.0022; pass 17, fail 4, na 0, unparseable 3") {
		t.Fatalf("grade: %d calls\n%s", calls.Load(), out)
	}
	for _, b := range bodies {
		for _, secret := range []string{"SECRET-SIM", "SECRET-AGENT", "secret-user-model", "secret-agent-model", "user_simulator"} {
			if strings.Contains(b, secret) {
				t.Fatalf("a grader request names %s:\n%s", secret, b)
			}
		}
	}
	code, out, _ = runUB(t, "--db", db, "sql", "--format", "csv", "SELECT simulation_id, verdict, turn_idx FROM verdicts WHERE grader = 'mg' AND verdict = 'fail' ORDER BY simulation_id")
	if code != 0 || out != "simulation_id,verdict,turn_idx\nc1,fail,1\nc2,fail,1\nc3,fail,1\nc4,fail,1\n" {
		t.Errorf("fails: %s", out)
	}
	if code, out, _ := runUB(t, "--db", db, "grade", "--grader", "mg", "--model", "g", "--base-url", srv.URL+"/v1"); code != 0 || calls.Load() != 16 || !strings.Contains(out, "0 sent, 16 cached") {
		t.Errorf("second run: exit %d, %d more requests\n%s", code, calls.Load()-16, out)
	}
}

// TestGradeThroughFaults: against the fault-injecting server (rate limits,
// server errors, resets, malformed bodies on first attempts) every pair is
// answered exactly once by the runner, and a second run sends nothing.
func TestGradeThroughFaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := gradeWorkspace(t, dir)
	srv := simtest.New(simtest.Options{Plan: func(key string, attempt int) simtest.Fault {
		if attempt > 1 {
			return simtest.Fault{}
		}
		switch key[0] % 5 {
		case 0:
			return simtest.Fault{Kind: simtest.RateLimit, RetryAfter: "0"}
		case 1:
			return simtest.Fault{Kind: simtest.ServerError}
		case 2:
			return simtest.Fault{Kind: simtest.Reset}
		case 3:
			return simtest.Fault{Kind: simtest.Malformed}
		}
		return simtest.Fault{}
	}})
	defer srv.Close()
	code, out, errs := runUB(t, "--db", db, "grade", "--model", "m", "--base-url", srv.BaseURL())
	// The fake server answers prose ("reply to ..."): all 24 unparseable,
	// none stored, none guessed.
	if code != 0 || !strings.Contains(out, "0 of 24 (episode, criterion) graded by model:m") || !strings.Contains(out, "unparseable 24") {
		t.Fatalf("grade: %d\n%s\n%s", code, out, errs)
	}
	completed := srv.Completed()
	if len(completed) != 16 { // 24 pairs, 16 distinct requests (see TestGradeBlindAndStrict)
		t.Errorf("%d distinct requests completed, want 16", len(completed))
	}
	for k, n := range completed {
		if n != 1 {
			t.Errorf("request %s completed %d times", k[:8], n)
		}
	}
	before := len(srv.Log())
	if code, out, _ := runUB(t, "--db", db, "grade", "--model", "m", "--base-url", srv.BaseURL()); code != 0 || len(srv.Log()) != before {
		t.Errorf("second run: exit %d, %d more requests\n%s", code, len(srv.Log())-before, out)
	}
}
