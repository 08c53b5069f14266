package splits

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/queries"
)

// workspace holds developers d0..d3, each alone in their own repository,
// with 6 sessions of "developer, agent, developer, agent, developer" (2
// moments each, turns 2 and 4) a day apart.
func workspace(t *testing.T) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	rw := queries.NewRowWriter(ctx, ws)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := range 4 {
		dev, repo := fmt.Sprintf("d%d", d), fmt.Sprintf("r%d", d)
		rw.Developer(dev)
		rw.Repo(repo)
		rw.DeveloperRepo(dev, repo, "session")
		for s := range 6 {
			id := fmt.Sprintf("%s-s%d", dev, s)
			rw.Session(queries.SessionRow{ID: id, Developer: dev, Repo: repo, StartedAt: start.AddDate(0, 0, s),
				Format: "jsonl", SourceFile: "f", Line: 1, ContentHash: id, Turns: 5})
			for i, role := range []string{"developer", "agent", "developer", "agent", "developer"} {
				rw.Turn(queries.TurnRow{SessionID: id, Idx: i, Role: role, Text: "x"})
			}
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestMakeAndFreeze: with every component in test, 2 of 6 sessions held
// out (ceil(0.3 * 6) = 2) give each developer 6 sessions, 2 held out and
// 2 * 2 = 4 held-out moments; with at least 4 moments required all four
// developers are eligible and Freeze keeps min(3, 4) = 3 points each.
func TestMakeAndFreeze(t *testing.T) {
	ctx := context.Background()
	ws := workspace(t)
	opts := Options{Seed: 7, Ratios: []graph.Ratio{{Name: "test", Value: 1}}, HeldoutFraction: 0.3,
		MinHeldoutSessions: 2, MinSessions: 6, MinHeldoutMoments: 4}
	sp, err := Make(ctx, ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Components) != 4 || len(sp.Developers) != 4 || sp.Run.Hash == "" {
		t.Fatalf("split %+v: want 4 components and developers", sp)
	}
	set, rows, err := Freeze(ctx, ws, PointOptions{PerDeveloper: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 || set.Hash != queries.PointSetHash(rows) {
		t.Fatalf("%d points, hash %s: want 12 and the hash of the points", len(rows), set.Hash)
	}
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if a.Developer > b.Developer || (a.Developer == b.Developer && a.ID >= b.ID) {
			t.Errorf("points not sorted by developer, id at %d: %v %v", i, a, b)
		}
	}
	stored, err := queries.Points(ctx, ws.Conn())
	if err != nil || queries.PointSetHash(stored) != set.Hash {
		t.Errorf("stored points hash %s (%v), want %s", queries.PointSetHash(stored), err, set.Hash)
	}
	// The same seed draws the same points; the split is the same too.
	again, _, err := Freeze(ctx, ws, PointOptions{PerDeveloper: 3, Seed: 1})
	if err != nil || again.Hash != set.Hash {
		t.Errorf("second draw hash %s (%v), want %s", again.Hash, err, set.Hash)
	}
	sp2, err := Make(ctx, ws, opts)
	if err != nil || sp2.Run.Hash != sp.Run.Hash {
		t.Errorf("second split hash %s (%v), want %s", sp2.Run.Hash, err, sp.Run.Hash)
	}
}

func TestMakeErrors(t *testing.T) {
	ctx := context.Background()
	ws := workspace(t)
	var oe *OptionsError
	if _, err := Make(ctx, ws, Options{Ratios: []graph.Ratio{{Name: "test", Value: 0.5}}}); !errors.As(err, &oe) {
		t.Errorf("ratios summing to 0.5: err %v, want an *OptionsError", err)
	}
	empty, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if _, err := Make(ctx, empty, Options{}); !errors.Is(err, ErrNoDevelopers) {
		t.Errorf("empty workspace: err %v, want ErrNoDevelopers", err)
	}
	if _, _, err := Freeze(ctx, empty, PointOptions{PerDeveloper: 3}); !errors.Is(err, queries.ErrNoSplit) {
		t.Errorf("freeze without a split: err %v, want ErrNoSplit", err)
	}
}
