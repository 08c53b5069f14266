package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestModelJudge: a model judge labels points through the runner; strict
// parsing stores answers that are not the asked-for JSON as unparseable,
// never guessed; a second run sends nothing; ub agree leaves them out.
func TestModelJudge(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		user := req.Messages[len(req.Messages)-1].Content
		// Every fifth answer is prose; the others follow the prompt.
		answer := `{"fine": "new_work", "move": "directive"}`
		switch {
		case n%5 == 0:
			answer = "I think this is a directive."
		case strings.Contains(user, "?"):
			answer = "```json\n{\"fine\": \"question\", \"move\": \"inquiry\"}\n```"
		}
		out, _ := json.Marshal(answer)
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":0,"model":"j","choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],"usage":{"prompt_tokens":50,"completion_tokens":9,"total_tokens":59}}`, out)
	}))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	code, out, errs := runUB(t, "--db", db, "judge", "--judge", "jm", "--model", "j", "--base-url", srv.URL+"/v1", "--target", "points")
	if code != 0 {
		t.Fatalf("judge: %d\n%s\n%s", code, out, errs)
	}
	sent := calls.Load()
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var points, labelled, unparseable, rawKept, keys int
	ctx := context.Background()
	ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM points`).Scan(&points)
	ws.Conn().QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE move = 'unparseable'), count(*) FILTER (WHERE move = 'unparseable' AND raw = 'I think this is a directive.') FROM labels WHERE judge = 'jm'`).Scan(&labelled, &unparseable, &rawKept)
	ws.Conn().QueryRowContext(ctx, `SELECT count(DISTINCT request_key) FROM labels WHERE judge = 'jm'`).Scan(&keys)
	ws.Close()
	// Points with the same message after the same agent turn share a
	// request: one call each.
	if labelled != points || int64(keys) != sent {
		t.Errorf("%d labels for %d points; %d requests for %d distinct requests", labelled, points, sent, keys)
	}
	if unparseable == 0 || unparseable != rawKept || unparseable > points/4 {
		t.Errorf("%d unparseable (%d with the raw answer kept), want about a fifth of %d", unparseable, rawKept, points)
	}
	if code, _, _ := runUB(t, "--db", db, "judge", "--judge", "jm", "--model", "j", "--base-url", srv.URL+"/v1", "--target", "points"); code != 0 || calls.Load() != sent {
		t.Errorf("second run: exit %d, %d more requests", code, calls.Load()-sent)
	}
	// --json summarises a model judge's run too (a third run: all cached).
	code, out, errs = runUB(t, "--db", db, "judge", "--judge", "jm", "--model", "j", "--base-url", srv.URL+"/v1", "--target", "points", "--json")
	var sums []struct {
		Target, Judge, Model string
		Labels, Sent, Cached int
		Failed               int
		Counts               map[string]int
	}
	if code != 0 || json.Unmarshal([]byte(out), &sums) != nil || len(sums) != 1 {
		t.Fatalf("judge --json: exit %d\n%s\n%s", code, out, errs)
	}
	total := 0
	for _, n := range sums[0].Counts {
		total += n
	}
	if j := sums[0]; j.Target != "points" || j.Judge != "jm" || j.Model != "j" || j.Labels != labelled || j.Sent != 0 || j.Cached == 0 ||
		j.Failed != 0 || total != labelled || j.Counts["unparseable"] != unparseable {
		t.Errorf("judge --json: %+v; want %d labels (%d unparseable), nothing sent", j, labelled, unparseable)
	}
	code, out, _ = runUB(t, "--db", db, "agree", "--judges", "builtin,jm")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("(%d more with an unparseable label, not compared)", unparseable)) {
		t.Errorf("agree: %d\n%s", code, out)
	}
}
