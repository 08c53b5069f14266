package queries

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestExportPartitioned: five rows of runs a, a, b, c, c give three
// directories run=a, run=b, run=c holding 2, 1 and 2 rows, and the count
// 5; an existing directory and a column that is not a name are refused
// and leave nothing behind.
func TestExportPartitioned(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TEMP TABLE t AS SELECT * FROM (VALUES ('a', 1), ('a', 2), ('b', 3), ('c', 4), ('c', 5)) v(run, x)`); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	n, err := ExportPartitioned(ctx, ws.Conn(), "SELECT * FROM t", dir, "run")
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("%d rows, want 5", n)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"run=a", "run=b", "run=c"}) {
		t.Errorf("directories %v, want run=a run=b run=c", names)
	}
	for run, want := range map[string]int{"a": 2, "b": 1, "c": 2} {
		var got int
		glob := filepath.Join(dir, "run="+run, "*.parquet")
		if err := ws.Conn().QueryRowContext(ctx, "SELECT count(*) FROM read_parquet(?)", glob).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("run %s: %d rows, want %d", run, got, want)
		}
	}
	if _, err := ExportPartitioned(ctx, ws.Conn(), "SELECT * FROM t", dir, "run"); err == nil {
		t.Error("an existing directory was written over")
	}
	if _, err := ExportPartitioned(ctx, ws.Conn(), "SELECT * FROM t", filepath.Join(parent, "bad"), `run"); DROP TABLE t; --`); err == nil {
		t.Error("a column that is not a name was accepted")
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("%d entries beside the export, want only it", len(ents))
	}
}
