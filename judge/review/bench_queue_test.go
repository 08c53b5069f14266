package review

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// BenchmarkQueueScale serves the queue page (the first and a middle
// page) and the episode page of the middle episode of a batch of n
// sampled episodes, half of them decided, and reports the bytes of HTML
// per page. The batch's other episodes are rows of ep_episodes and
// rv_assignments written in bulk; the one shown has a conversation.
//
//	go test ./judge/review -run '^$' -bench BenchmarkQueueScale -benchtime 20x
func BenchmarkQueueScale(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			ctx := context.Background()
			ws, err := queries.Open(ctx, "", queries.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			ep := reviewtest.Three()[0]
			ep.ID = fmt.Sprintf("sim-%07d", n/2)
			if err := reviewtest.Insert(ctx, ws, []reviewtest.Episode{ep}); err != nil {
				b.Fatal(err)
			}
			for _, stmt := range []string{
				`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, reward, n_messages)
				 SELECT printf('sim-%07d', i), 'r', 'f', i, 'h', 'airline', CAST(i % 50 AS VARCHAR), (i % 2)::DOUBLE, 6
				 FROM range(?) t(i) WHERE i <> ?`,
				`INSERT INTO rv_batches (batch, seed, n, stratify, reviewers) VALUES ('b1', 1, ?, '', 'alice')`,
				`INSERT INTO rv_assignments SELECT 'b1', 'alice', CAST(i + 1 AS INTEGER), printf('sim-%07d', (i * 7919) % ?) FROM range(?) t(i)`,
				`INSERT INTO rv_decisions (simulation_id, reviewer, kind, outcome, batch, source, decided_at, revision)
				 SELECT printf('sim-%07d', i), 'alice', 'human', 'no_error', 'b1', 'web', TIMESTAMP '2026-03-01 10:00:00', 1
				 FROM range(?) t(i) WHERE i % 2 = 0 AND i <> ?`,
			} {
				var args []any
				switch {
				case stmt[12:23] == "ep_episodes" || stmt[12:24] == "rv_decisions":
					args = []any{n, n / 2}
				case stmt[12:22] == "rv_batches":
					args = []any{n}
				default:
					args = []any{n, n}
				}
				if _, err := ws.Conn().ExecContext(ctx, stmt, args...); err != nil {
					b.Fatal(err)
				}
			}
			srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice"}, Hosts: []string{"example.test"}})
			if err != nil {
				b.Fatal(err)
			}
			srv.sessions["sid"] = session{reviewer: "alice", csrf: "x"}
			if err := srv.Warm(ctx); err != nil { // what ub review serve does before it prints the URLs
				b.Fatal(err)
			}
			for _, page := range []struct{ name, path string }{
				{"queue", "/"},
				{"queue-middle", fmt.Sprintf("/?page=%d", n/200)},
				{"episode", "/episode?id=" + ep.ID},
			} {
				b.Run(page.name, func(b *testing.B) {
					var size int
					for b.Loop() {
						req := httptest.NewRequest("GET", "http://example.test"+page.path, nil)
						req.AddCookie(&http.Cookie{Name: cookieName, Value: "sid"})
						rec := httptest.NewRecorder()
						srv.ServeHTTP(rec, req)
						if rec.Code != 200 {
							b.Fatalf("%s: status %d %.200s", page.path, rec.Code, rec.Body.String())
						}
						size = rec.Body.Len()
					}
					b.ReportMetric(float64(size), "B/page")
				})
			}
		})
	}
}
