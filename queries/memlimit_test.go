package queries

import (
	"context"
	"path/filepath"
	"testing"
)

// TestScaleMemoryLimit: the limit is scaled while ingest writes and set
// back after; 512 MiB x 0.375 = 192 MiB.
func TestScaleMemoryLimit(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "w.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	get := func() string {
		var s string
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	restore, err := ScaleMemoryLimit(ctx, ws.Conn(), IngestMemoryShare)
	if err != nil {
		t.Fatal(err)
	}
	if got := get(); got != "192.0 MiB" {
		t.Errorf("scaled limit = %q, want 192.0 MiB", got)
	}
	if err := restore(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(); got != "512.0 MiB" {
		t.Errorf("restored limit = %q, want 512.0 MiB", got)
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
