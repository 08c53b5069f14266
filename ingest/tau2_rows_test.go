package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTau2CorpusStoredRows ingests results/ and tau_trait/ of corpus/tau2
// and compares every table's rows (each row as DuckDB prints it, the corpus
// root left out of paths, sorted) by count and MD5 with
// testdata/tau2_corpus_rows.golden, written by an ingest before the tau2
// reader was made faster: a change of speed must store the same rows.
// Refresh with go test ./ingest -run TestTau2CorpusStoredRows -update
// only when the rows are meant to change.
func TestTau2CorpusStoredRows(t *testing.T) {
	root := corpusDir(t, "tau2")
	ws := memWorkspace(t)
	ctx := context.Background()
	paths := []string{filepath.Join(root, "results"), filepath.Join(root, "tau_trait")}
	st, err := Run(ctx, ws, paths, Options{NewProber: testProber})
	if err != nil || st.Episodes != 769 {
		t.Fatalf("ingest: %d episodes, %v (%v)", st.Episodes, err, st.Errors)
	}
	rows, err := ws.Conn().QueryContext(ctx, `SELECT table_name FROM duckdb_tables()
		WHERE database_name = current_database() AND schema_name = 'main' AND NOT temporary ORDER BY table_name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, tb := range tables {
		if tb == "schema_migrations" {
			continue // the schema's, not the data's
		}
		var n int64
		var sum string
		q := fmt.Sprintf(`SELECT count(*), coalesce(md5(string_agg(r, chr(10) ORDER BY r)), '')
			FROM (SELECT replace(t::VARCHAR, ?, '') AS r FROM %q t)`, tb)
		if err := ws.Conn().QueryRowContext(ctx, q, root).Scan(&n, &sum); err != nil {
			t.Fatalf("%s: %v", tb, err)
		}
		if n > 0 {
			fmt.Fprintf(&got, "%s %d %s\n", tb, n, sum)
		}
	}
	golden := filepath.Join("testdata", "tau2_corpus_rows.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("stored rows differ from %s:\ngot:\n%s\nwant:\n%s", golden, got.String(), want)
	}
}
