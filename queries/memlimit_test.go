package queries

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestScaleMemoryLimit: the limit is scaled while ingest writes and set
// back after: 512 MiB x 0.25 = 128 MiB; 64 MiB x 0.25 = 16 MiB is below the
// 32 MiB floor, which is taken instead; 20 MiB is below the floor, and is
// kept as it is.
func TestScaleMemoryLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct{ limit, scaled string }{
		{"512MiB", "128.0 MiB"}, {"64MiB", "32.0 MiB"}, {"20MiB", "20.0 MiB"},
	} {
		ws, err := Open(ctx, filepath.Join(t.TempDir(), "w.duckdb"), Options{MemoryLimit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		get := func() string {
			var s string
			if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&s); err != nil {
				t.Fatal(err)
			}
			return s
		}
		before := get()
		restore, err := ScaleMemoryLimit(ctx, ws.Conn(), IngestMemoryShare, IngestMemoryFloor)
		if err != nil {
			t.Fatal(err)
		}
		if got := get(); got != tc.scaled {
			t.Errorf("%s: scaled limit = %q, want %s", tc.limit, got, tc.scaled)
		}
		if err := restore(ctx); err != nil {
			t.Fatal(err)
		}
		if got := get(); got != before {
			t.Errorf("%s: restored limit = %q, want %s", tc.limit, got, before)
		}
		ws.Close()
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512.0 MiB": 512 << 20, "1.5 GiB": 3 << 29, "2 GB": 2e9, "100 bytes": 100, "7": 7} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseSize("lots"); err == nil {
		t.Error("parseSize(lots): no error")
	}
}

// TestLimitThreads: DuckDB runs one thread while ingest writes and the
// number it had after (whatever it was: 3 here, set by the test).
func TestLimitThreads(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, "SET threads = 3"); err != nil {
		t.Fatal(err)
	}
	threads := func() int {
		var n int
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	restore, err := LimitThreads(ctx, ws.Conn(), BulkWriteThreads)
	if err != nil {
		t.Fatal(err)
	}
	if n := threads(); n != 1 {
		t.Errorf("threads while ingest writes: %d, want 1", n)
	}
	if err := restore(ctx); err != nil {
		t.Fatal(err)
	}
	if n := threads(); n != 3 {
		t.Errorf("threads after: %d, want the 3 it had", n)
	}
}

// TestApplySettings: the settings are applied in order and set back
// together; when one fails, those before it are set back and its error is
// returned.
func TestApplySettings(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, "SET threads = 3"); err != nil {
		t.Fatal(err)
	}
	threads := func() (n int) {
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	refused := errors.New("refused")
	fail := func(context.Context, *sql.Conn) (func(context.Context) error, error) { return nil, refused }
	if _, err := ApplySettings(ctx, ws.Conn(), Threads(1), fail); !errors.Is(err, refused) {
		t.Errorf("a failing setting: %v, want its error", err)
	}
	if n := threads(); n != 3 {
		t.Errorf("after a failed setting, threads %d, want the 3 set back", n)
	}
	restore, err := ApplySettings(ctx, ws.Conn(), Threads(1), Threads(2))
	if err != nil {
		t.Fatal(err)
	}
	if n := threads(); n != 2 {
		t.Errorf("threads %d, want the last setting's 2", n)
	}
	if err := restore(ctx); err != nil {
		t.Fatal(err)
	}
	if n := threads(); n != 3 {
		t.Errorf("restored threads %d, want 3 (set back last first)", n)
	}
}
