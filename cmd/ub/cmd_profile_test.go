package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

// TestProfileModelPersona: ub profile --model distils a persona per
// developer through the runner, stores it as kind model, sends nothing the
// second time, and ub prompt show --persona model puts it in the prompt.
func TestProfileModelPersona(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"d","choices":[{"index":0,"message":{"role":"assistant","content":"A terse developer, persona number %d."},"finish_reason":"stop"}],"usage":{"prompt_tokens":300,"completion_tokens":20,"total_tokens":320}}`, n)
	}))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	// The distilling model has prices and a rate limit like every model path.
	code, out, errs := runUB(t, "--db", db, "profile", "--model", "d", "--base-url", srv.URL+"/v1",
		"--price-in", "1000", "--price-out", "10000", "--rate-limit", "500")
	if code != 0 || !strings.Contains(out, "distilled") {
		t.Fatalf("profile: %d\n%s\n%s", code, out, errs)
	}
	sent := calls.Load()
	// Each answer: 300 tokens in at $1000/M + 20 out at $10000/M = 0.3 + 0.2 = $0.5.
	if want := fmt.Sprintf("%d sent, 0 cached, $%.4f", sent, 0.5*float64(sent)); !strings.Contains(out, want) {
		t.Errorf("profile output %q, want %q", out, want)
	}
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var stats, models int
	ws.Conn().QueryRowContext(context.Background(), `SELECT count(*) FILTER (WHERE kind = 'stats'), count(*) FILTER (WHERE kind = 'model' AND text LIKE 'A terse developer%' AND request_key IS NOT NULL) FROM profiles`).Scan(&stats, &models)
	ws.Close()
	if models == 0 || models != stats || int64(models) != sent {
		t.Errorf("%d stats profiles, %d model personas, %d requests", stats, models, sent)
	}
	if code, _, _ := runUB(t, "--db", db, "profile", "--model", "d", "--base-url", srv.URL+"/v1"); code != 0 || calls.Load() != sent {
		t.Errorf("second run: exit %d, %d more requests", code, calls.Load()-sent)
	}
	code, out, errs = runUB(t, "--db", db, "prompt", "show", "--condition", "profile", "--persona", "model", "@1")
	if code != 0 || !strings.Contains(out, "A terse developer, persona number") {
		t.Errorf("prompt show with the model persona: %d\n%s\n%s", code, out, errs)
	}
}

// TestProfileRetryFailed is defect 4 of issue 9: ub profile --model replayed
// a stored failure forever (it had no --retry-failed), and with the API-key
// variable unset it showed that stored failure instead of saying what is
// missing.
func TestProfileRetryFailed(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := simtest.New(simtest.Options{Plan: func(_ string, attempt int) simtest.Fault {
		calls.Add(1)
		if attempt <= 6 { // every attempt of the first run (RunOptions.MaxAttempts' default)
			return simtest.Fault{Kind: simtest.Unavailable, RetryAfter: "0"}
		}
		return simtest.Fault{}
	}})
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var dev string
	ws.Conn().QueryRowContext(context.Background(), `SELECT min(developer) FROM profiles WHERE kind = 'stats'`).Scan(&dev)
	ws.Close()
	profile := func(extra ...string) (int, string) {
		code, _, errs := runUB(t, append([]string{"--db", db, "profile", "--developer", dev, "--model", "d", "--base-url", srv.BaseURL()}, extra...)...)
		return code, errs
	}
	if code, errs := profile(); code != exitModel {
		t.Fatalf("first run: exit %d, want %d (every attempt unavailable); stderr: %s", code, exitModel, errs)
	}
	sent := calls.Load()
	code, errs := profile("--api-key-env", "UB_TEST_UNSET_KEY")
	if code != exitNoData || !strings.Contains(errs, "UB_TEST_UNSET_KEY") {
		t.Errorf("unset key: exit %d, stderr %q; want %d naming the variable", code, errs, exitNoData)
	}
	code, errs = profile()
	if code != exitModel || calls.Load() != sent || !strings.Contains(errs, "--retry-failed") {
		t.Errorf("second run: exit %d, %d requests, stderr %q; want the stored failure, no request, a hint at --retry-failed", code, calls.Load()-sent, errs)
	}
	if code, errs := profile("--retry-failed"); code != 0 || calls.Load() == sent {
		t.Errorf("--retry-failed: exit %d, %d requests; stderr: %s", code, calls.Load()-sent, errs)
	}
}
