package queries

import "testing"

// TestMemoryLimitBytes: a limit's bytes as DuckDB reads them, powers of
// 1024 for KiB/MiB/GiB and of 1000 for MB/GB; a size DuckDB would refuse is
// the error CheckMemoryLimit gives.
func TestMemoryLimitBytes(t *testing.T) {
	for limit, want := range map[string]int64{"512MiB": 512 << 20, "3GiB": 3 << 30, "2GB": 2e9, "1.5 GiB": 3 << 29, "128MiB": 128 << 20} {
		if got, err := MemoryLimitBytes(limit); err != nil || got != want {
			t.Errorf("MemoryLimitBytes(%q) = %d, %v; want %d", limit, got, err, want)
		}
	}
	for _, bad := range []string{"512", "1MiB", "lots"} {
		if _, err := MemoryLimitBytes(bad); err == nil {
			t.Errorf("MemoryLimitBytes(%q): no error", bad)
		}
	}
}
