package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

func runUB(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	code := run(append([]string{"ub"}, args...), &streams{in: strings.NewReader(""), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

// TestGenerateAgainstServer: ub generate on the demo workspace against an
// OpenAI-compatible test server that rate-limits, fails and resets some
// requests: every point gets exactly one generation per condition, no
// completed request is sent twice, and a second run sends nothing.
func TestGenerateAgainstServer(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	if code, _, errs := runUB(t, "demo", "--dir", filepath.Join(dir, "d")); code != 0 {
		t.Fatalf("demo: %d %s", code, errs)
	}
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
	t.Setenv("UB_TEST_KEY", "sk-test-secret-123")
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
