package synth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// epTables are the tables WriteFidelity fills.
var epTables = []string{"ep_prices", "ep_tasks", "ep_rubric_criteria", "ep_runs", "ep_verdicts", "ep_messages", "ep_tool_calls", "ep_episodes", "provenance"}

// withChunks sets chunkRows to n and records the rows of every commit
// until the test ends.
func withChunks(t *testing.T, n int) *[]int {
	t.Helper()
	var commits []int
	old := chunkRows
	chunkRows, afterCommit = n, func(rows int) { commits = append(commits, rows) }
	t.Cleanup(func() { chunkRows, afterCommit = old, nil })
	return &commits
}

// open returns a fresh in-memory workspace.
func open(t *testing.T) *queries.Workspace {
	t.Helper()
	w, err := queries.Open(context.Background(), "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// writeBoth writes the UserBench study of seed 1 and the fidelity study of
// seed 2 into fresh workspaces.
func writeBoth(t *testing.T, ctx context.Context) (*queries.Workspace, *queries.Workspace, error, error) {
	t.Helper()
	ws, wsF := open(t), open(t)
	_, err1 := Write(ctx, ws, Options{Seed: 1})
	_, err2 := WriteFidelity(ctx, wsF, FidelityOptions{Seed: 2})
	return ws, wsF, err1, err2
}

// TestChunkedCommitsBoundTransactions: both studies commit a transaction
// every chunkRows rows (plus the rest of one session or episode at most),
// so no transaction grows with the scale, and the rows written in chunks
// of 2,000 are the rows written in one transaction. At scale 1 the
// UserBench study writes about 25,000 rows of corpus and 40,000 of
// generations and labels, the fidelity study about 80,000: some tens of
// commits each.
func TestChunkedCommitsBoundTransactions(t *testing.T) {
	ctx := context.Background()
	commits := withChunks(t, 1<<40)
	one, oneF, err1, err2 := writeBoth(t, ctx)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	// One transaction each for the corpus, the generations and the
	// fidelity study (the split and the points commit on their own).
	if len(*commits) != 3 {
		t.Fatalf("with no chunk limit: %d commits, want 3", len(*commits))
	}
	*commits = nil
	chunkRows = 10_000
	chunked, chunkedF, err1, err2 := writeBoth(t, ctx)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, n := range *commits {
		total += n
		// The longest session has under 200 turns.
		if n > chunkRows+200 {
			t.Errorf("commit %d held %d rows, want at most %d + one session", i, n, chunkRows)
		}
	}
	if len(*commits) < total/(chunkRows+200) || total < 100_000 {
		t.Errorf("%d commits of %d rows in all, want at least one per %d rows", len(*commits), total, chunkRows+200)
	}
	for _, tb := range tables {
		if a, b := digest(t, one, tb), digest(t, chunked, tb); a != b {
			t.Errorf("%s: %s in one transaction, %s in chunks", tb, a, b)
		}
	}
	for _, tb := range epTables {
		if a, b := digest(t, oneF, tb), digest(t, chunkedF, tb); a != b {
			t.Errorf("%s: %s in one transaction, %s in chunks", tb, a, b)
		}
	}
}

// TestFailedChunkedWriteLeavesNothing: a study that fails after some of
// its chunks committed (here the context is cancelled after the third
// commit) leaves its workspace empty, as it found it, not half-written.
func TestFailedChunkedWriteLeavesNothing(t *testing.T) {
	commits := withChunks(t, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	afterCommit = func(rows int) {
		*commits = append(*commits, rows)
		if len(*commits) == 3 {
			cancel()
		}
	}
	ws, wsF := open(t), open(t)
	if _, err := Write(ctx, ws, Options{Seed: 1}); !errors.Is(err, context.Canceled) || len(*commits) != 3 {
		t.Fatalf("Write: %v after %d commits, want the cancellation after 3", err, len(*commits))
	}
	*commits = nil
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	if _, err := WriteFidelity(ctx, wsF, FidelityOptions{Seed: 2}); !errors.Is(err, context.Canceled) || len(*commits) != 3 {
		t.Fatalf("WriteFidelity: %v after %d commits, want the cancellation after 3", err, len(*commits))
	}
	for _, w := range []*queries.Workspace{ws, wsF} {
		// Every table of the workspace: those the study wrote, and any
		// other it might write one day.
		var tables []string
		rows, err := w.Conn().QueryContext(context.Background(), "SELECT table_name FROM duckdb_tables() WHERE table_name <> 'schema_migrations' ORDER BY table_name")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var tb string
			rows.Scan(&tb)
			tables = append(tables, tb)
		}
		rows.Close()
		if len(tables) < 26 {
			t.Fatalf("tables %v: want at least the 26 a study writes", tables)
		}
		for _, tb := range tables {
			var n int
			if err := w.Conn().QueryRowContext(context.Background(), "SELECT count(*) FROM "+tb).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s after the failure: %d rows, want 0", tb, n)
			}
		}
	}
}

// TestStudyDefersCheckpoints: the UserBench study's chunks commit on one
// DuckDB thread and without a checkpoint each (every checkpoint wrote the
// primary-key indexes whole, so the study's time grew faster than its
// rows): with checkpoint_threshold set as low as 1 KiB, the write-ahead log
// still only grows from one commit to the next (a checkpoint would have
// emptied it), and the threshold and threads are as they were afterwards.
func TestStudyDefersCheckpoints(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ub.duckdb")
	ws, err := queries.Open(ctx, path, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var def string
	if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('checkpoint_threshold')").Scan(&def); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Conn().ExecContext(ctx, "SET checkpoint_threshold = '1KiB'"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Conn().ExecContext(ctx, "SET threads = 3"); err != nil {
		t.Fatal(err)
	}
	threads := func() (n int) {
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var logs []int64
	var during []int
	old := chunkRows
	chunkRows, afterCommit = 2000, func(int) {
		during = append(during, threads())
		fi, err := os.Stat(path + ".wal")
		if err != nil {
			logs = append(logs, 0)
			return
		}
		logs = append(logs, fi.Size())
	}
	t.Cleanup(func() { chunkRows, afterCommit = old, nil })
	if _, err := Write(ctx, ws, Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if len(logs) < 10 {
		t.Fatalf("%d commits, want tens", len(logs))
	}
	for i := 1; i < len(logs); i++ {
		if logs[i] <= logs[i-1] {
			t.Fatalf("the log went from %d to %d bytes at commit %d: a checkpoint ran (logs %v)", logs[i-1], logs[i], i+1, logs)
		}
	}
	var now string
	if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('checkpoint_threshold')").Scan(&now); err != nil {
		t.Fatal(err)
	}
	if now != def {
		t.Errorf("checkpoint_threshold is %s after the study, want the default %s", now, def)
	}
	// DuckDB runs one thread while the study is written
	// (queries.BulkWriteThreads) and the 3 it had after.
	for i, n := range during {
		if n != 1 {
			t.Fatalf("commit %d: DuckDB ran %d threads, want 1", i+1, n)
		}
	}
	if n := threads(); n != 3 {
		t.Errorf("threads after the study: %d, want the 3 it had", n)
	}
}
