package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

func runUB(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := run(append([]string{"ub"}, args...), testStreams(&out, &errb))
	checkVerdictKeys(t, args)
	return code, out.String(), errb.String()
}

// TestGenerateAgainstServer: ub generate on the demo workspace against an
// OpenAI-compatible test server that rate-limits, fails and resets some
// requests: every point gets exactly one generation per condition, no
// completed request is sent twice, and a second run sends nothing.
func TestGenerateAgainstServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	srv := simtest.New(simtest.Options{Plan: func(key string, attempt int) simtest.Fault {
		if attempt > 1 {
			return simtest.Fault{}
		}
		switch key[0] % 8 {
		case '0' % 8:
			return simtest.Fault{Kind: simtest.RateLimit, RetryAfter: "0"}
		case '1' % 8:
			return simtest.Fault{Kind: simtest.ServerError}
		case '2' % 8:
			return simtest.Fault{Kind: simtest.Reset}
		case '3' % 8:
			return simtest.Fault{Kind: simtest.Malformed}
		}
		return simtest.Fault{}
	}})
	defer srv.Close()
	// The key is in UB_TEST_KEY (testAPIKey, set by TestMain: t.Setenv
	// would keep the test from running in parallel).
	exp := filepath.Join(dir, "exp.toml")
	os.WriteFile(exp, []byte(fmt.Sprintf(`
name = "served"
[[simulator]]
name = "served-model"
backend = "openai"
model = "m1"
base_url = %q
api_key_env = "UB_TEST_KEY"
price_in = 1.0
price_out = 2.0
concurrency = 4
max_attempts = 4
`, srv.BaseURL())), 0o644)
	code, out, errs := runUB(t, "--db", db, "generate", "--experiment", exp, "--json")
	if code != 0 {
		t.Fatalf("generate: exit %d\n%s\n%s", code, out, errs)
	}
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var points, gens, distinct, failed, keyLeaks int
	q := func(query string, dst *int) {
		if err := ws.Conn().QueryRowContext(context.Background(), query).Scan(dst); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	q(`SELECT count(*) FROM points`, &points)
	q(`SELECT count(*) FROM generations WHERE simulator = 'served-model'`, &gens)
	q(`SELECT count(DISTINCT (point_id, condition)) FROM generations WHERE simulator = 'served-model'`, &distinct)
	q(`SELECT count(*) FROM generations WHERE simulator = 'served-model' AND error IS NOT NULL`, &failed)
	q(`SELECT count(*) FROM responses WHERE request::VARCHAR LIKE '%sk-test%' OR raw::VARCHAR LIKE '%sk-test%' OR coalesce(error, '') LIKE '%sk-test%'`, &keyLeaks)
	ws.Close()
	if gens != 2*points || distinct != gens || failed != 0 {
		t.Errorf("%d generations (%d distinct, %d failed) for %d points x 2 conditions", gens, distinct, failed, points)
	}
	if keyLeaks != 0 {
		t.Errorf("the API key reached the database %d times", keyLeaks)
	}
	for key, n := range srv.Completed() {
		if n != 1 {
			t.Errorf("key %s completed %d times", key[:12], n)
		}
	}
	if len(srv.AfterCompletion()) != 0 {
		t.Errorf("%d requests sent again after their key was completed", len(srv.AfterCompletion()))
	}
	before := len(srv.Log())
	code, out, errs = runUB(t, "--db", db, "generate", "--experiment", exp)
	if code != 0 || len(srv.Log()) != before {
		t.Errorf("second run: exit %d, %d new requests\n%s%s", code, len(srv.Log())-before, out, errs)
	}
	if !strings.Contains(out, fmt.Sprintf("%d", 2*points)) {
		t.Errorf("summary: %s", out)
	}
	if strings.Contains(out+errs, "sk-test") {
		t.Error("the API key was printed")
	}
}

// TestGenerateThroughBatchFiles: a batch simulator's requests go out as an
// OpenAI Batch file, its results come back through ub batch import, and
// ub generate then makes every generation at the batch price.
func TestGenerateThroughBatchFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	exp := filepath.Join(dir, "exp.toml")
	os.WriteFile(exp, []byte(`
[[simulator]]
name = "batched"
backend = "openai-batch"
model = "m1"
price_in = 1.0
price_out = 2.0
batch_discount = 0.5
conditions = ["noprofile"]
`), 0o644)
	bdir := filepath.Join(dir, "batch")
	code, out, errs := runUB(t, "--db", db, "generate", "--experiment", exp, "--batch-write", bdir)
	if code != 0 || !strings.Contains(errs, "batched-001.jsonl") {
		t.Fatalf("batch write: %d\n%s\n%s", code, out, errs)
	}
	// The provider's answers: one output line per request line.
	reqs, err := os.ReadFile(filepath.Join(bdir, "batched-001.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var results strings.Builder
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(reqs)), "\n") {
		var r struct {
			CustomID string `json:"custom_id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&results, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":200,"request_id":"r%d","body":{"id":"c%d","object":"chat.completion","created":0,"model":"m1","choices":[{"index":0,"message":{"role":"assistant","content":"ok, go ahead"},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}},"error":null}`+"\n", n, r.CustomID, n, n)
		n++
	}
	resFile := filepath.Join(dir, "results.jsonl")
	os.WriteFile(resFile, []byte(results.String()), 0o644)
	code, out, errs = runUB(t, "--db", db, "batch", "import", "--provider", "openai", "--keys", filepath.Join(bdir, "batched-001.keys.jsonl"), resFile)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%d answered", n)) {
		t.Fatalf("batch import: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runUB(t, "--db", db, "generate", "--experiment", exp, "--json")
	if code != 0 {
		t.Fatalf("generate: %d\n%s\n%s", code, out, errs)
	}
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var gens int
	var cost float64
	ws.Conn().QueryRowContext(context.Background(), `SELECT count(*), sum(cost) FROM generations WHERE simulator = 'batched' AND error IS NULL`).Scan(&gens, &cost)
	// Each answer: (100 * $1 + 10 * $2) / 1e6 = $0.00012, halved for the batch.
	if gens != n || fmt.Sprintf("%.8f", cost) != fmt.Sprintf("%.8f", float64(n)*0.00006) {
		t.Errorf("%d generations costing %v; want %d costing %v", gens, cost, n, float64(n)*0.00006)
	}
}

// TestGenerateSurvivesKill9: ub generate runs as a subprocess against a slow
// test server, is killed with SIGKILL mid-run and run again: every (point,
// condition) has exactly one generation, and the server completed each key
// once (nothing answered before the kill was sent again).
func TestGenerateSurvivesKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	demo := filepath.Join(dir, "d")
	db := filepath.Join(demo, "ub.duckdb")
	demoDir(t, demo)
	srv := simtest.New(simtest.Options{Latency: 30 * time.Millisecond})
	defer srv.Close()
	exp := filepath.Join(dir, "exp.toml")
	os.WriteFile(exp, []byte(fmt.Sprintf("[[simulator]]\nname = \"slow\"\nbackend = \"openai\"\nmodel = \"m\"\nbase_url = %q\nconcurrency = 2\n", srv.BaseURL())), 0o644)
	args, _ := json.Marshal([]string{"--db", db, "generate", "--experiment", exp})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(args))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once some answers are in (and surely stored) but most are not.
	deadline := time.Now().Add(60 * time.Second)
	for len(srv.Completed()) < 40 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	atKill := len(srv.Completed())
	// The answers that were stored before the kill (the group commit may
	// lose the last few milliseconds, which are then sent again).
	stored := map[string]bool{}
	{
		ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := ws.Conn().QueryContext(context.Background(), `SELECT request::VARCHAR FROM responses WHERE error IS NULL`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var req string
			rows.Scan(&req)
			var r struct {
				Messages []simtest.Message `json:"messages"`
			}
			json.Unmarshal([]byte(req), &r)
			stored[simtest.Key(r.Messages)] = true
		}
		rows.Close()
		ws.Close()
	}
	if len(stored) == 0 {
		t.Fatal("nothing was stored before the kill")
	}
	if code, out, errs := runUB(t, "--db", db, "generate", "--experiment", exp); code != 0 {
		t.Fatalf("re-run: %d\n%s\n%s", code, out, errs)
	}
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var points, gens, distinct int
	ws.Conn().QueryRowContext(context.Background(), `SELECT count(*) FROM points`).Scan(&points)
	ws.Conn().QueryRowContext(context.Background(), `SELECT count(*), count(DISTINCT (point_id, condition)) FROM generations WHERE simulator = 'slow' AND error IS NULL`).Scan(&gens, &distinct)
	if gens != 2*points || distinct != gens {
		t.Errorf("%d generations (%d distinct) for %d points x 2 conditions", gens, distinct, points)
	}
	for key, n := range srv.Completed() {
		if stored[key] && n != 1 || n > 2 {
			t.Errorf("key %s (stored before the kill: %v) completed %d times", key[:12], stored[key], n)
		}
	}
	for key := range stored {
		if srv.Completed()[key] == 0 {
			t.Fatalf("stored key %s was never answered by the server: the key mapping of this test is wrong", key[:12])
		}
	}
	if atKill == 0 || atKill >= len(srv.Completed()) {
		t.Errorf("the kill came at %d of %d completed keys: not mid-run", atKill, len(srv.Completed()))
	}
}
