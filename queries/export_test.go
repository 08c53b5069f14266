package queries

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestExportArrowRoundTrip(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	path := filepath.Join(t.TempDir(), "x.arrow")
	query := `SELECT * FROM (VALUES (1, 'a', 1.5, true, TIMESTAMP '2025-01-02 03:04:05'),
	                               (2, NULL, NULL, false, NULL)) v(i, s, f, b, ts) ORDER BY i`
	n, err := Export(ctx, ws.Conn(), query, path, "arrow")
	if err != nil || n != 2 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.Record(0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.NumRows() != 2 || rec.NumCols() != 5 {
		t.Fatalf("record %dx%d", rec.NumRows(), rec.NumCols())
	}
	if got := rec.Column(0).(*array.Int64).Value(1); got != 2 {
		t.Errorf("i[1] = %d", got)
	}
	if s := rec.Column(1).(*array.String); s.Value(0) != "a" || !s.IsNull(1) {
		t.Errorf("s = %v", s)
	}
	if f := rec.Column(2).(*array.Float64); f.Value(0) != 1.5 || !f.IsNull(1) {
		t.Errorf("f = %v", f)
	}
	ts := rec.Column(4).(*array.Timestamp).Value(0)
	want := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).UnixMicro()
	if int64(ts) != want || rec.Schema().Field(4).Type.(*arrow.TimestampType).Unit != arrow.Microsecond {
		t.Errorf("ts = %d, want %d", ts, want)
	}
}

func TestExportLeavesNoFileOnError(t *testing.T) {
	ctx := context.Background()
	ws, _ := Open(ctx, "", Options{})
	defer ws.Close()
	dir := t.TempDir()
	if _, err := Export(ctx, ws.Conn(), "SELECT * FROM nosuch", filepath.Join(dir, "x.parquet"), "parquet"); err == nil {
		t.Fatal("want an error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v behind", ents)
	}
}

func TestMigrationsApplyOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.duckdb")
	for i := 0; i < 2; i++ {
		ws, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n)
		ms, _ := Migrations()
		if n != len(ms) {
			t.Errorf("open %d: %d migrations recorded, want %d", i, n, len(ms))
		}
		ws.Close()
	}
	ws, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open: %v", err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `INSERT INTO developers VALUES ('x')`); err == nil {
		t.Error("read-only workspace accepted a write")
	}
}

// TestExportRunsTheQueryOnce: Parquet and JSONL exports count the rows
// COPY wrote instead of running the query a second time to count them (a
// query over a million episodes ran twice). A sequence the query draws
// from (in a filter, so counting must draw too) shows how often it ran: 5 rows, so 5 after one export, 10 after two.
func TestExportRunsTheQueryOnce(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TEMP SEQUENCE drawn`); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, format := range []string{"parquet", "jsonl"} {
		n, err := Export(ctx, ws.Conn(), `SELECT v FROM (SELECT nextval('drawn') AS v FROM range(5)) WHERE v > 0`, filepath.Join(dir, "x."+format), format)
		if err != nil || n != 5 {
			t.Fatalf("%s: Export = %d, %v; want 5 rows", format, n, err)
		}
		var drawn int64
		if err := ws.Conn().QueryRowContext(ctx, `SELECT currval('drawn')`).Scan(&drawn); err != nil {
			t.Fatal(err)
		}
		if want := int64(5 * (i + 1)); drawn != want {
			t.Errorf("%s: the sequence is at %d after %d export(s), want %d: the query ran more than once", format, drawn, i+1, want)
		}
	}
}
