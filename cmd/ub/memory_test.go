package main

import (
	"context"
	"errors"
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

// TestOutOfMemoryAtCommit: DuckDB running out of memory while it commits
// says so as a TransactionContext error, not an "Out of Memory Error"; ub
// names the flag for it as well, without DuckDB's SET advice. Other errors
// that speak of memory are left as they are.
func TestOutOfMemoryAtCommit(t *testing.T) {
	commit := errors.New("TransactionContext Error: Failed to commit: failed to allocate data of size 64.0 KiB (511.9 MiB/512.0 MiB used)\n\n" +
		"Possible solutions:\n* Increasing the memory limit (SET memory_limit='...GB')")
	msg, ok := outOfMemory(commit)
	if !ok || strings.Contains(msg, "SET memory_limit") || !strings.HasSuffix(msg, "(511.9 MiB/512.0 MiB used)") {
		t.Errorf("commit out of memory: %v %q", ok, msg)
	}
	var out, errs strings.Builder
	if code := exitCode(commit, &streams{out: &out, err: &errs}); code != exitInternal || !strings.Contains(errs.String(), "--memory-limit") {
		t.Errorf("exit %d, stderr %q", code, errs.String())
	}
	// The buffer manager's other refusals, as a commit would carry them
	// (sizes as DuckDB prints them: "512 bytes" under 1 KiB).
	for _, m := range []string{
		"TransactionContext Error: Failed to commit: failed to pin block of size 256.0 KiB (511.9 MiB/512.0 MiB used)",
		"TransactionContext Error: Failed to commit: failed to reserve memory data of size 16.0 KiB (127.9 MiB/128.0 MiB used)",
		"TransactionContext Error: Failed to commit: failed to allocate data of size 512 bytes (63.9 MiB/64.0 MiB used)",
		"TransactionContext Error: Failed to commit: could not allocate block of size 256.0 KiB (1.9 GiB/2.0 GiB used)",
	} {
		if _, ok := outOfMemory(errors.New(m)); !ok {
			t.Errorf("%q not taken for running out of memory", m)
		}
	}
	for _, other := range []string{
		"Binder Error: column memory_used not found",
		"IO Error: could not allocate space on disk",
	} {
		if _, ok := outOfMemory(errors.New(other)); ok {
			t.Errorf("%q taken for running out of memory", other)
		}
	}
}
