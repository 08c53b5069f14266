package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// splitFixture: developer ann with 7 sessions (one without a start time),
// bob with 2, each session "developer, agent, developer, agent, developer"
// so it has 2 moments (turns 2 and 4).
func splitFixture(t *testing.T) *Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	var stmts []string
	add := func(id, dev, start string) {
		ts := "NULL"
		if start != "" {
			ts = "TIMESTAMP '" + start + "'"
		}
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO sessions VALUES ('%s', '%s', '%s/r', %s, 'jsonl', 'f', 1, 'h%s', 5, NULL)`, id, dev, dev, ts, id))
		for i, role := range []string{"developer", "agent", "developer", "agent", "developer"} {
			stmts = append(stmts, fmt.Sprintf(`INSERT INTO turns VALUES ('%s', %d, '%s', 'x', NULL, false, NULL)`, id, i, role))
		}
	}
	// Start times deliberately out of id order.
	add("a1", "ann", "2025-01-05 00:00:00")
	add("a2", "ann", "2025-01-01 00:00:00")
	add("a3", "ann", "2025-01-03 00:00:00")
	add("a4", "ann", "2025-01-02 00:00:00")
	add("a5", "ann", "2025-01-07 00:00:00")
	add("a6", "ann", "2025-01-06 00:00:00")
	add("a7", "ann", "") // no start time: last
	add("b1", "bob", "2025-02-01 00:00:00")
	add("b2", "bob", "2025-02-02 00:00:00")
	for _, s := range stmts {
		if _, err := ws.Conn().ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func storeFixtureSplit(t *testing.T, ws *Workspace, frac float64) {
	t.Helper()
	run := SplitRun{Seed: 1, Ratios: "test=1", Measure: "developers", Hash: "x", HeldoutFraction: frac,
		MinHeldoutSessions: 2, MinSessions: 6, MinHeldoutMoments: 8}
	comps := []ComponentRow{{0, 1, 1, 7, "test"}, {1, 1, 1, 2, "test"}}
	devs := []NodeSplit{{"ann", 0, "test"}, {"bob", 1, "test"}}
	repos := []NodeSplit{{"ann/r", 0, "test"}, {"bob/r", 1, "test"}}
	if err := StoreSplit(context.Background(), ws, run, comps, devs, repos); err != nil {
		t.Fatal(err)
	}
}

func roles(t *testing.T, ws *Workspace, dev string) string {
	t.Helper()
	rows, err := ws.Conn().QueryContext(context.Background(),
		`SELECT session_id, role FROM session_roles WHERE developer = ? ORDER BY ordinal`, dev)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, role string
		rows.Scan(&id, &role)
		out = append(out, id+":"+role[:1])
	}
	return strings.Join(out, " ")
}

func TestTimeSplit(t *testing.T) {
	tests := []struct {
		name     string
		frac     float64
		ann, bob string
	}{
		// ann: 7 sessions, ceil(0.3*7) = 3 held out; order by start time, NULL last.
		{"latest 30% held out in start-time order", 0.3, "a2:p a4:p a3:p a1:p a6:h a5:h a7:h", "b1:p b2:h"},
		// ceil(0.1*7) = 1 < min 2: 2 held out. bob: 2 sessions, min 2 capped at n-1 = 1.
		{"minimum held out, one profile session kept", 0.1, "a2:p a4:p a3:p a1:p a6:p a5:h a7:h", "b1:p b2:h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := splitFixture(t)
			storeFixtureSplit(t, ws, tt.frac)
			if got := roles(t, ws, "ann"); got != tt.ann {
				t.Errorf("ann = %s, want %s", got, tt.ann)
			}
			if got := roles(t, ws, "bob"); got != tt.bob {
				t.Errorf("bob = %s, want %s", got, tt.bob)
			}
			fs, err := Audit(context.Background(), ws.Conn())
			if err != nil || len(fs) != 0 {
				t.Errorf("audit = %v, %v", fs, err)
			}
		})
	}
}

func TestEligibilityFunnel(t *testing.T) {
	ws := splitFixture(t)
	storeFixtureSplit(t, ws, 0.3)
	// ann: 7 sessions, 3 held out, 3*2 = 6 held-out moments < 8: dropped at moments.
	// bob: 2 sessions < 6: dropped at sessions.
	f, err := Funnel(context.Background(), ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	want := []FunnelRow{{"test", 2, 1, 1, 0}}
	if fmt.Sprint(f) != fmt.Sprint(want) {
		t.Errorf("funnel = %+v, want %+v", f, want)
	}
	// Held out 4 of 7 (frac 0.5): 8 moments, eligible.
	storeFixtureSplit(t, ws, 0.5)
	var dropped string
	ws.Conn().QueryRowContext(context.Background(), `SELECT coalesce(dropped_at, 'eligible') FROM eligibility WHERE developer = 'ann'`).Scan(&dropped)
	if dropped != "eligible" {
		t.Errorf("ann with 4 held-out sessions: %s, want eligible", dropped)
	}
	// Two of ann's profile sessions hold only commands: they do not count,
	// 7 - 2 = 5 sessions < 6, dropped at sessions.
	if _, err := ws.Conn().ExecContext(context.Background(), `UPDATE turns SET is_command = true WHERE session_id IN ('a2', 'a4') AND role = 'developer'`); err != nil {
		t.Fatal(err)
	}
	storeFixtureSplit(t, ws, 0.5)
	var sessions int
	ws.Conn().QueryRowContext(context.Background(), `SELECT sessions, coalesce(dropped_at, 'eligible') FROM eligibility WHERE developer = 'ann'`).Scan(&sessions, &dropped)
	if sessions != 5 || dropped != "sessions" {
		t.Errorf("ann with 2 command-only sessions: %d sessions, %s; want 5, dropped at sessions", sessions, dropped)
	}
}

func TestAuditFindsProfileAfterHeldout(t *testing.T) {
	ws := splitFixture(t)
	storeFixtureSplit(t, ws, 0.3)
	ctx := context.Background()
	// Move the earliest session after every held-out one.
	if _, err := ws.Conn().ExecContext(ctx, `UPDATE sessions SET started_at = TIMESTAMP '2026-01-01 00:00:00' WHERE id = 'a2'`); err != nil {
		t.Fatal(err)
	}
	fs, err := Audit(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 || fs[0].Check != "profile_after_heldout" || !strings.Contains(fs[0].Offender, "profile session a2 starts after held-out session") {
		t.Errorf("findings = %+v", fs)
	}
}
