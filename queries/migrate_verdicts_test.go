package queries

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrationUnkeysVerdicts: a workspace made before 0019 (ep_verdicts
// with its primary key, which DuckDB keeps whole in memory) keeps every
// verdict through the migration, column for column in 0007's order and
// types, and its ep_verdicts has no primary key or index after it; the
// views over the table still read it, and PutVerdicts still replaces a
// stored verdict rather than adding a second.
func TestMigrationUnkeysVerdicts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	// An existing DuckDB file (not a creation, which leaves nothing when
	// stopped), migrated up to 0019 and stopped there, as an older ub left it.
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	migrationHook = func(m Migration) error {
		if m.Version == 19 {
			return context.Canceled
		}
		return nil
	}
	t.Cleanup(func() { migrationHook = nil })
	if ws, err := Open(ctx, path, Options{}); err == nil {
		ws.Close()
		t.Fatal("the migration stopped at 0019 succeeded")
	}
	migrationHook = nil
	db, err = sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	columns := func(db interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) string {
		t.Helper()
		var s string
		if err := db.QueryRowContext(ctx, `SELECT string_agg(column_name || ' ' || data_type || ' ' || is_nullable, ', ' ORDER BY column_index)
			FROM duckdb_columns() WHERE table_name = 'ep_verdicts'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	keys := func(db interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) string {
		t.Helper()
		var s string
		if err := db.QueryRowContext(ctx, `SELECT coalesce(string_agg(constraint_type, ',' ORDER BY constraint_type), '')
			FROM duckdb_constraints() WHERE table_name = 'ep_verdicts' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_indexes() WHERE table_name = 'ep_verdicts'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s indexes %d", s, n)
	}
	oldColumns := columns(db)
	if got := keys(db); got != "PRIMARY KEY indexes 0" {
		t.Fatalf("before 0019, ep_verdicts has %q; want its primary key: the test does not build an old workspace", got)
	}
	stmts := []string{
		`INSERT INTO ep_tasks (task_key, domain, task_id, format, raw, source_file) VALUES ('k1', 'airline', '1', 'tau2', '{}', 't.json')`,
		`INSERT INTO ep_runs (run_id, source_file, format, domain, user_sim, agent) VALUES ('r', 'a.json', 'tau2', 'airline', 'sim', 'agent')`,
		`INSERT INTO ep_episodes (simulation_id, run_id, source_file, source_index, content_hash, domain, task_id, n_messages)
		 VALUES ('e1', 'r', 'a.json', 0, 'h', 'airline', '1', 2), ('e2', 'r', 'a.json', 1, 'h', 'airline', '1', 2)`,
		`INSERT INTO ep_rubric_criteria (criterion_id, domain, task_id, family, mode, quote, quote_source, text, written_by, status, source_file, source_line)
		 VALUES ('c1', 'airline', '1', 'disclosure', 'volunteers_unasked_info', 'q', 'known_info', 't', 'imported:r.jsonl', 'accepted', 'r.jsonl', 1)`,
		`INSERT INTO ep_verdicts VALUES
		 ('e1', 'c1', 'g', 'fail', 3, 'said too much', 'v1', 'key1', 'grade:m', 1),
		 ('e1', 'c1', 'h', 'pass', NULL, NULL, NULL, NULL, 'v.jsonl', 7),
		 ('e2', 'c1', 'g', 'na', NULL, 'no', NULL, NULL, 'v.jsonl', 8)`,
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db.Close()

	ws, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c := ws.Conn()
	if got := columns(c); got != oldColumns {
		t.Errorf("columns after 0019:\n %s\nwant, as 0007 made them:\n %s", got, oldColumns)
	}
	if got := keys(c); got != " indexes 0" {
		t.Errorf("after 0019 ep_verdicts has %q; want no key and no index", got)
	}
	dump := func() string {
		t.Helper()
		var b strings.Builder
		err := Adhoc(ctx, c, `SELECT * FROM ep_verdicts ORDER BY simulation_id, criterion_id, grader`, func(_ []Column, row []any) error {
			if row != nil {
				fmt.Fprintln(&b, row...)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	want := "e1 c1 g fail 3 said too much v1 key1 grade:m 1\ne1 c1 h pass <nil> <nil> <nil> <nil> v.jsonl 7\ne2 c1 g na <nil> no <nil> <nil> v.jsonl 8\n"
	if got := dump(); got != want {
		t.Fatalf("ep_verdicts after 0019:\n%s\nwant:\n%s", got, want)
	}
	var n int
	if err := c.QueryRowContext(ctx, `SELECT count(*) FROM verdicts WHERE family = 'disclosure'`).Scan(&n); err != nil || n != 3 {
		t.Errorf("verdicts view: %d rows, err %v; want 3", n, err)
	}
	if err := c.QueryRowContext(ctx, `SELECT count(*) FROM episode_fidelity`).Scan(&n); err != nil || n != 3 {
		t.Errorf("episode_fidelity view: %d rows, err %v; want 3", n, err)
	}
	// Storing e1's verdict by g again replaces it.
	if err := PutVerdicts(ctx, ws, []StoredVerdict{{SimulationID: "e1", CriterionID: "c1", Grader: "g", Verdict: "pass", SourceFile: "grade:m", SourceLine: 1}}); err != nil {
		t.Fatal(err)
	}
	want = "e1 c1 g pass <nil> <nil> <nil> <nil> grade:m 1\ne1 c1 h pass <nil> <nil> <nil> <nil> v.jsonl 7\ne2 c1 g na <nil> no <nil> <nil> v.jsonl 8\n"
	if got := dump(); got != want {
		t.Fatalf("ep_verdicts after PutVerdicts:\n%s\nwant:\n%s", got, want)
	}
}

// TestPutVerdictsRefusesARepeat: verdicts giving one (simulation,
// criterion, grader) twice are refused whole, naming the key, and leave
// the stored verdicts as they were (no primary key refuses them since
// 0019).
func TestPutVerdictsRefusesARepeat(t *testing.T) {
	ctx := context.Background()
	ws := fidelityFixture(t)
	cs := []Criterion{{CriterionID: "c1", Domain: "airline", TaskID: "1", Family: "disclosure", Mode: "volunteers_unasked_info", Quote: "q", QuoteSource: "known_info", Text: "t", WrittenBy: "imported:r.jsonl", Status: "accepted", SourceFile: "r.jsonl", SourceLine: 1}}
	if err := PutCriteria(ctx, ws, cs); err != nil {
		t.Fatal(err)
	}
	v := func(sim, verdict string, line int) StoredVerdict {
		return StoredVerdict{SimulationID: sim, CriterionID: "c1", Grader: "g", Verdict: verdict, SourceFile: "grade:m", SourceLine: line}
	}
	if err := PutVerdicts(ctx, ws, []StoredVerdict{v("a1", "pass", 1)}); err != nil {
		t.Fatal(err)
	}
	err := PutVerdicts(ctx, ws, []StoredVerdict{v("b1", "pass", 1), v("a1", "fail", 2), v("a1", "na", 3)})
	if err == nil || !strings.Contains(err.Error(), "the verdict of c1 on a1 by g is given twice") {
		t.Fatalf("PutVerdicts with a key twice: %v; want the key named", err)
	}
	var got string
	if err := ws.Conn().QueryRowContext(ctx, `SELECT string_agg(simulation_id || ' ' || verdict, ', ' ORDER BY simulation_id) FROM ep_verdicts`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "a1 pass" {
		t.Errorf("stored after the refused put: %s; want a1 pass alone", got)
	}
}
