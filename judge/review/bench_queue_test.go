package review

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// scaleServer is a workbench over a workspace file holding corpus episodes
// of 20 messages, 2 tool calls and (every other one) a probe finding each,
// of which the first batch are the batch b1 of reviewers alice and bob;
// alice decided every other one, bob every third, and the LLM reviewer
// llm:r1 (the batch's pre-fill) every one, each decision with its
// revision and every tenth of alice's with an error. The episode shown,
// sim-<batch/2>, has a conversation of its own and no decision of alice.
// It returns the server (alice's session is "sid") and that episode's id.
func scaleServer(tb testing.TB, corpus, batch int) (*Server, string) {
	tb.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, filepath.Join(tb.TempDir(), "ws.duckdb"), queries.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ws.Close() })
	ep := reviewtest.Three()[0]
	shown := batch / 2
	ep.ID = fmt.Sprintf("sim-%07d", shown)
	if err := reviewtest.Insert(ctx, ws, []reviewtest.Fixture{ep}); err != nil {
		tb.Fatal(err)
	}
	for _, stmt := range []string{
		`SET preserve_insertion_order = true`, // as the appenders of ingest write: episode by episode
		`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, reward, n_messages)
		 SELECT printf('sim-%07d', i), 'r', 'f', i, 'h', 'airline', CAST(i % 50 AS VARCHAR), (i % 2)::DOUBLE, 20
		 FROM range($corpus) t(i) WHERE i <> $shown`,
		`INSERT INTO ep_messages (simulation_id, idx, turn_idx, role, content, n_tool_calls)
		 SELECT printf('sim-%07d', i), j, j, CASE WHEN j % 2 = 0 THEN 'user' ELSE 'assistant' END,
		        'message ' || j || ' of episode ' || i || ': ' || repeat('words ', 30), 0
		 FROM range($corpus) t(i), range(20) u(j) WHERE i <> $shown`,
		`INSERT INTO ep_tool_calls (simulation_id, msg_idx, call_idx, requestor, name, arguments)
		 SELECT printf('sim-%07d', i), 2 * j + 1, 0, 'assistant', 'get_reservation', '{"id": "ABC"}'
		 FROM range($corpus) t(i), range(2) u(j) WHERE i <> $shown`,
		`INSERT INTO ep_probe_findings (simulation_id, probe, turn_idx, evidence)
		 SELECT printf('sim-%07d', i), 'P1', 2, 'a write the user did not ask for' FROM range($corpus) t(i) WHERE i % 2 = 1 AND i <> $shown`,
		`INSERT INTO rv_batches (batch, seed, n, stratify, reviewers, prefill) VALUES ('b1', 1, $batch, '', 'alice,bob', 'llm:r1')`,
		`INSERT INTO rv_assignments SELECT 'b1', r, CAST(i + 1 AS INTEGER), printf('sim-%07d', (i * 7919) % $batch)
		 FROM range($batch) t(i), (VALUES ('alice'), ('bob')) v(r)`,
		`CREATE TEMP TABLE scale_decided AS
		 SELECT printf('sim-%07d', i) AS simulation_id, r AS reviewer, CASE WHEN r = 'llm:r1' THEN 'llm' ELSE 'human' END AS kind,
		        CASE WHEN r = 'alice' AND i % 10 = 0 THEN 'error' ELSE 'no_error' END AS outcome
		 FROM range($batch) t(i), (VALUES ('alice'), ('bob'), ('llm:r1')) v(r)
		 WHERE i <> $shown AND (r = 'llm:r1' OR (r = 'alice' AND i % 2 = 0) OR (r = 'bob' AND i % 3 = 0))`,
		`INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, batch, source, decided_at, revision)
		 SELECT simulation_id, reviewer, kind, outcome, 'b1', 'web', TIMESTAMP '2026-03-01 10:00:00', 1 FROM scale_decided`,
		`INSERT INTO rv_revisions (simulation_id, reviewer, revision, kind, outcome, batch, source, decided_at, prefilled)
		 SELECT simulation_id, reviewer, 1, kind, outcome, 'b1', 'web', TIMESTAMP '2026-03-01 10:00:00', '' FROM scale_decided`,
		`INSERT INTO rv_errors SELECT simulation_id, reviewer, 0, 3, 'hallucination', 'minor', 'n' FROM scale_decided WHERE outcome = 'error'`,
		`INSERT INTO rv_revision_errors SELECT simulation_id, reviewer, 1, 0, 3, 'hallucination', 'minor', 'n' FROM scale_decided WHERE outcome = 'error'`,
		`DROP TABLE scale_decided`,
		`SET preserve_insertion_order = false`,
		`CHECKPOINT`,
	} {
		stmt = strings.NewReplacer("$corpus", fmt.Sprint(corpus), "$batch", fmt.Sprint(batch), "$shown", fmt.Sprint(shown)).Replace(stmt)
		if _, err := ws.Conn().ExecContext(ctx, stmt); err != nil {
			tb.Fatalf("%s: %v", stmt, err)
		}
	}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice", "bob"}, Prefill: "llm:r1", Hosts: []string{"example.test"}})
	if err != nil {
		tb.Fatal(err)
	}
	srv.sessions["sid"] = session{reviewer: "alice", csrf: "x"}
	if err := srv.Warm(ctx); err != nil { // what ub review serve does before it prints the URLs
		tb.Fatal(err)
	}
	return srv, ep.ID
}

// scalePages are the pages a reviewer opens: the queue's first and a
// middle page, and the episode page of the episode shown.
func scalePages(batch int, id string) [][2]string {
	return [][2]string{{"queue", "/"}, {"queue-middle", fmt.Sprintf("/?page=%d", max(1, batch/200))}, {"episode", "/episode?id=" + id}}
}

func getPage(tb testing.TB, srv *Server, path string) []byte {
	req := httptest.NewRequest("GET", "http://example.test"+path, nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: "sid"})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != 200 {
		tb.Fatalf("%s: status %d %.200s", path, rec.Code, rec.Body.String())
	}
	return rec.Body.Bytes()
}

// BenchmarkQueueScale serves the queue page (the first and a middle
// page) and the episode page of the middle episode of a batch of n
// sampled episodes (the whole corpus: 20n messages), and reports the
// bytes of HTML per page.
//
//	go test ./judge/review -run '^$' -bench BenchmarkQueueScale -benchtime 20x
func BenchmarkQueueScale(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			srv, id := scaleServer(b, n, n)
			for _, page := range scalePages(n, id) {
				b.Run(page[0], func(b *testing.B) {
					var size int
					for b.Loop() {
						size = len(getPage(b, srv, page[1]))
					}
					b.ReportMetric(float64(size), "B/page")
				})
			}
		})
	}
}

// recorder keeps the read queries a page runs, with their arguments.
type recorder struct {
	queries.Querier
	seen []recorded
}

type recorded struct {
	query string
	args  []any
}

func (r *recorder) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.seen = append(r.seen, recorded{query, args})
	return r.Querier.QueryContext(ctx, query, args...)
}

func (r *recorder) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	r.seen = append(r.seen, recorded{query, args})
	return r.Querier.QueryRowContext(ctx, query, args...)
}

// rowsScanned runs each query again under EXPLAIN ANALYZE and returns the
// rows DuckDB read from tables for it.
func rowsScanned(t *testing.T, db queries.Querier, seen []recorded) []int64 {
	var out []int64
	for _, s := range seen {
		var name, plan string
		if err := db.QueryRowContext(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON)\n"+s.query, s.args...).Scan(&name, &plan); err != nil {
			t.Fatalf("explain %s: %v", s.query, err)
		}
		var p struct {
			Rows *int64 `json:"cumulative_rows_scanned"`
		}
		if err := json.Unmarshal([]byte(plan), &p); err != nil || p.Rows == nil {
			t.Fatalf("explain %s: no cumulative_rows_scanned in %.300s (%v)", s.query, plan, err)
		}
		out = append(out, *p.Rows)
	}
	return out
}

// TestPagesDoNotGrowWithTheBatch serves each page of a batch of 500 and of
// 5,000 episodes drawn from the same corpus of 5,000, and requires, of the
// bigger batch, the same queries, each reading at most 1.2 times the rows
// (plus 16) of the smaller, and pages at most 1.2 times the bytes. The
// conversation's own tables (ep_messages, ep_tool_calls,
// ep_probe_findings) hold the same corpus in both, so their scans cancel:
// what is compared is what the batch adds (assignments, decisions,
// revisions, errors). Before the indexes of migration 0017 the episode
// page read every decision and revision of the batch: its lookups read
// about 10 times the rows at 10 times the batch.
func TestPagesDoNotGrowWithTheBatch(t *testing.T) {
	const corpus = 5_000
	type measure struct {
		bytes int
		rows  []int64
		sqls  []string
	}
	measureAt := func(batch int) map[string]measure {
		srv, id := scaleServer(t, corpus, batch)
		out := map[string]measure{}
		for _, page := range scalePages(batch, id) {
			page[1] = strings.Replace(page[1], fmt.Sprintf("page=%d", max(1, batch/200)), "page=2", 1)
			rec := &recorder{Querier: srv.ws.Conn()}
			srv.db = rec
			m := measure{bytes: len(getPage(t, srv, page[1]))}
			srv.db = srv.ws.Conn()
			m.rows = rowsScanned(t, srv.ws.Conn(), rec.seen)
			for _, s := range rec.seen {
				m.sqls = append(m.sqls, s.query)
			}
			out[page[0]] = m
		}
		return out
	}
	small, big := measureAt(corpus/10), measureAt(corpus)
	for _, page := range []string{"queue", "queue-middle", "episode"} {
		s, b := small[page], big[page]
		if float64(b.bytes) > 1.2*float64(s.bytes) {
			t.Errorf("%s: %d bytes at 10x the batch, %d before (more than 1.2x)", page, b.bytes, s.bytes)
		}
		if strings.Join(s.sqls, "\x00") != strings.Join(b.sqls, "\x00") {
			t.Errorf("%s: %d queries at 10x the batch, %d before, or not the same ones", page, len(b.sqls), len(s.sqls))
			continue
		}
		for i := range s.rows {
			t.Logf("%s: query %d reads %d rows at batch %d, %d at %d: %.80s", page, i, s.rows[i], corpus/10, b.rows[i], corpus,
				strings.Join(strings.Fields(s.sqls[i]), " "))
			if float64(b.rows[i]) > 1.2*float64(s.rows[i])+16 {
				t.Errorf("%s: query %d reads %d rows at 10x the batch, %d before (more than 1.2x): %s", page, i, b.rows[i], s.rows[i], s.sqls[i])
			}
		}
	}
}
