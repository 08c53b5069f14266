package review

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// BenchmarkSaveDecision: one committed decision (two errors) per
// iteration, in a workspace file: what a reviewer waits for on each save.
func BenchmarkSaveDecision(b *testing.B) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, filepath.Join(b.TempDir(), "ws.duckdb"), queries.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := queries.Decision{SimulationID: fmt.Sprintf("s%d", i%50), Reviewer: "alice", Kind: "human", Outcome: "error", Source: "web",
			DecidedAt: fixedClock(), Errors: []queries.ReviewError{
				{TurnIdx: sql.NullInt64{Int64: 3, Valid: true}, Code: "hallucination", Severity: "minor", Note: "n"},
				{Code: "other", Severity: "critical_hindered", Note: "m"}}}
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEpisodePage: the episode page of a 60-message episode.
func BenchmarkEpisodePage(b *testing.B) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	ep := reviewtest.Three()[0]
	for len(ep.Messages) < 60 {
		ep.Messages = append(ep.Messages, ep.Messages[1:5]...)
	}
	if err := reviewtest.Insert(ctx, ws, []reviewtest.Fixture{ep}); err != nil {
		b.Fatal(err)
	}
	if err := queries.CreateReviewBatch(ctx, ws, queries.ReviewBatch{Batch: "b1", Seed: 1, N: 1, Reviewers: "alice"},
		[]queries.ReviewAssignment{{Reviewer: "alice", Position: 1, SimulationID: ep.ID}}); err != nil {
		b.Fatal(err)
	}
	srv, err := NewServer(ws, Options{Batch: "b1", Reviewers: []string{"alice"}, Hosts: []string{"example.test"}})
	if err != nil {
		b.Fatal(err)
	}
	sess := session{reviewer: "alice", csrf: "x"}
	srv.sessions["sid"] = sess
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", "http://example.test/episode?id="+ep.ID, nil)
		req.AddCookie(&http.Cookie{Name: cookieName, Value: "sid"})
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
