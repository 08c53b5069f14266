package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestOutOfMemoryNamesTheFlag: a query that needs more than --memory-limit
// fails with DuckDB's error, without DuckDB's advice to SET settings a
// workspace does not take, and with the flag that raises the limit; the
// same query under the default limit succeeds.
func TestOutOfMemoryNamesTheFlag(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	ws, err := queries.Open(context.Background(), db, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	// 5M distinct strings: a hash table of well over 8 MiB.
	query := "select count(distinct s) from (select 'x'||i as s from range(5000000) t(i))"
	code, _, stderr := ubRun("--db", db, "--memory-limit", "8MiB", "sql", query)
	if code != exitInternal || !strings.Contains(stderr, "Out of Memory Error") ||
		!strings.Contains(stderr, "--memory-limit") || strings.Contains(stderr, "SET memory_limit") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d, DuckDB's error and the flag, not its SET advice", code, stderr, exitInternal)
	}
	code, stdout, stderr := ubRun("--db", db, "sql", "--format", "csv", query)
	if code != 0 || !strings.Contains(stdout, "5000000") {
		t.Errorf("default limit: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
}
