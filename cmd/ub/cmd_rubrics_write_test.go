package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// TestRubricsWrite: a writer and a verifier model through the runner, both
// meeting a server error on every first attempt; criteria failing the
// quote check or the verifier are kept as rejected with the reason; the
// writer sees the blueprint, guidelines, user tools and a sample said not
// to be an oracle; a second run sends nothing.
func TestRubricsWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := gradeWorkspace(t, dir)
	var mu sync.Mutex
	seen := map[string]int{}
	calls := 0
	var writerPrompts, verifierPrompts []string
	taskRE := regexp.MustCompile(`TASK airline/(\d+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		mu.Lock()
		calls++
		seen[string(body)]++
		first := seen[string(body)] == 1
		mu.Unlock()
		if first {
			w.WriteHeader(500)
			fmt.Fprint(w, `{"error": {"message": "boom", "type": "server_error"}}`)
			return
		}
		user := req.Messages[1].Content
		task := taskRE.FindStringSubmatch(user)[1]
		var answer string
		if req.Model == "writer" {
			mu.Lock()
			writerPrompts = append(writerPrompts, user)
			mu.Unlock()
			answer = fmt.Sprintf(`{"criteria": [
{"family": "disclosure", "mode": "volunteers_unasked_info", "quote": "Your user id is u_%[1]s.", "quote_source": "known_info", "text": "No id before asked."},
{"family": "goal_deviation", "mode": "accepts_forbidden_outcome", "quote": "You do not accept a fee.", "quote_source": "task_instructions", "text": "No fee.", "applies_when": "a fee is offered"},
{"family": "groundedness", "mode": "unsupported_state", "quote": "You are a pilot.", "quote_source": "persona", "text": "Invented."},
{"family": "politeness", "mode": "rude", "quote": "You do not accept a fee.", "quote_source": "task_instructions", "text": "Be polite."},
{"family": "omitted_info", "mode": "withholds_asked_info", "quote": "change flight %[1]s", "quote_source": "reason_for_call", "text": "Says which flight."}]}`, task)
		} else {
			mu.Lock()
			verifierPrompts = append(verifierPrompts, user)
			mu.Unlock()
			answer = fmt.Sprintf("```json\n"+`{"decisions": [{"criterion_id": "airline-%[1]s-w1", "keep": true, "reason": "sound"}, {"criterion_id": "airline-%[1]s-w2", "keep": true, "reason": "sound"}, {"criterion_id": "airline-%[1]s-w5", "keep": false, "reason": "redundant with w2"}]}`+"\n```", task)
		}
		out, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":500,"completion_tokens":200,"total_tokens":700}}`, out)
	}))
	defer srv.Close()
	code, out, errs := runUB(t, "--db", db, "rubrics", "write", "--model", "writer", "--verifier-model", "verifier", "--base-url", srv.URL+"/v1")
	if code != 0 {
		t.Fatalf("rubrics write: %d\n%s\n%s", code, out, errs)
	}
	// 4 tasks x (2 accepted + 3 rejected); 4 writer and 4 verifier
	// requests, each failing once then answered: 16 calls.
	if !strings.Contains(out, "4 tasks: 8 criteria accepted, 12 rejected") || !strings.Contains(out, "4 sent, 0 cached, 0 failed, 0 unparseable") || calls != 16 {
		t.Fatalf("%d calls\n%s", calls, out)
	}
	for _, w := range []string{"known_info: Your user id is u_", "GUIDELINES (given to every simulated user)\nDisclose information progressively.", "USER TOOLS\nnone", "SAMPLE CONVERSATION (not an oracle", "[1] user:"} {
		if !strings.Contains(writerPrompts[0], w) {
			t.Errorf("writer prompt lacks %q:\n%s", w, writerPrompts[0])
		}
	}
	if strings.Contains(verifierPrompts[0], "-w3") || !strings.Contains(verifierPrompts[0], "-w5 (family omitted_info") {
		t.Errorf("verifier sees only what passed the quote check:\n%s", verifierPrompts[0])
	}
	code, out, _ = runUB(t, "--db", db, "sql", "--format", "csv", "SELECT criterion_id, status, reject_reason, written_by, verified_by FROM rubric_criteria WHERE task_id = '2' AND written_by = 'writer' ORDER BY criterion_id")
	want := `criterion_id,status,reject_reason,written_by,verified_by
airline-2-w1,accepted,,writer,verifier
airline-2-w2,accepted,,writer,verifier
airline-2-w3,rejected,"writer check: criterion airline-2-w3: quote ""You are a pilot."" does not occur in persona of task airline/2",writer,
airline-2-w4,rejected,"writer check: criterion airline-2-w4: unknown family ""politeness"" (want one of disclosure, goal_deviation, groundedness, omitted_info)",writer,
airline-2-w5,rejected,verifier: redundant with w2,writer,verifier
`
	if code != 0 || out != want {
		t.Errorf("criteria:\n%s\nwant\n%s", out, want)
	}
	before := calls
	if code, out, _ := runUB(t, "--db", db, "rubrics", "write", "--model", "writer", "--verifier-model", "verifier", "--base-url", srv.URL+"/v1"); code != 0 || calls != before || !strings.Contains(out, "0 sent, 4 cached") {
		t.Errorf("second run: %d, %d more calls\n%s", code, calls-before, out)
	}
	if code, _, errs := runUB(t, "--db", db, "rubrics", "write", "--model", "w", "--verifier-model", "w", "--base-url", srv.URL+"/v1"); code != exitUsage || !strings.Contains(errs, "another model") {
		t.Errorf("same verifier: %d %s", code, errs)
	}
}
