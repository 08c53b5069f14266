package queries

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func openFileWorkspace(t *testing.T, readOnly bool) *Workspace {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.duckdb")
	ws, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !readOnly {
		t.Cleanup(func() { ws.Close() })
		return ws
	}
	ws.Close()
	ws, err = Open(context.Background(), path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

type adhocResult struct {
	cols []Column
	rows [][]any
}

func collect(run func(fn func([]Column, []any) error) error) (adhocResult, error) {
	var r adhocResult
	err := run(func(cols []Column, row []any) error {
		r.cols = cols
		if row != nil {
			r.rows = append(r.rows, append([]any(nil), row...))
		}
		return nil
	})
	return r, err
}

// streamTypesQuery has a column of every type of streamType, with NULLs,
// extremes, strings on both sides of 12 bytes (inline or not in DuckDB),
// dates and timestamps before 1970 and at DuckDB's infinities.
const streamTypesQuery = `SELECT * FROM (VALUES
  (true, (-128)::TINYINT, (-32768)::SMALLINT, (-2147483648)::INTEGER, (-9223372036854775808)::BIGINT,
   0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT, 'nan'::FLOAT, 'inf'::DOUBLE,
   '', ''::BLOB, DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999',
   TIMESTAMPTZ '2024-02-29 12:00:00+00', TIMESTAMP_S '1900-01-01 00:00:01', TIMESTAMP_MS '2000-01-01 00:00:00.123',
   TIMESTAMP_NS '2262-04-11 23:47:16.854775', '{"a": [1, 2.5, null], "b": "x"}'::JSON, (-170141183460469231731687303715884105728)::HUGEINT, 1),
  (false, 127::TINYINT, 32767::SMALLINT, 2147483647::INTEGER, 9223372036854775807::BIGINT,
   255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 18446744073709551615::UBIGINT, (-0.1)::FLOAT, 1e300::DOUBLE,
   'twelve bytes', 'a\x00b'::BLOB, DATE 'infinity', TIMESTAMP '-infinity',
   TIMESTAMPTZ 'infinity', TIMESTAMP_S '2038-01-19 03:14:08', TIMESTAMP_MS '1960-06-01 01:02:03.004',
   TIMESTAMP_NS '1677-09-22 00:00:00', '[true, "ü", 1e300]'::JSON, 170141183460469231731687303715884105727::HUGEINT, 2),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   'thirteen byte', 'a longer blob past twelve'::BLOB, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 3),
  (true, 0::TINYINT, 0::SMALLINT, 0::INTEGER, 0::BIGINT, 1::UTINYINT, 1::USMALLINT, 1::UINTEGER, 1::UBIGINT, 0.5::FLOAT, (-2.5e-308)::DOUBLE,
   'ünïcödé ☃ and more than twelve', NULL, DATE '0044-03-15', TIMESTAMP '2025-01-01 00:00:00',
   NULL, NULL, NULL, NULL, '"a string"'::JSON, (-1)::HUGEINT, 4)
) t(b, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, s, bl, d, ts, tstz, tss, tsms, tsns, j, h, k)
ORDER BY k`

// TestStreamedValuesAreTheDriversValues: every type the streaming path
// reads gives the Go values and column types the driver gives (the driver
// being the reference), and the query did stream.
func TestStreamedValuesAreTheDriversValues(t *testing.T) {
	ws := openFileWorkspace(t, true)
	ctx := context.Background()
	got, err := collect(func(fn func([]Column, []any) error) error { return ws.adhocStream(ctx, streamTypesQuery, fn) })
	if err != nil {
		t.Fatalf("streamed: %v", err)
	}
	want, err := collect(func(fn func([]Column, []any) error) error { return Adhoc(ctx, ws.Conn(), streamTypesQuery, fn) })
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
	if !reflect.DeepEqual(got.cols, want.cols) {
		t.Errorf("columns\n got %v\nwant %v", got.cols, want.cols)
	}
	if len(got.rows) != 4 || len(want.rows) != 4 {
		t.Fatalf("%d rows streamed, %d by the driver, want 4", len(got.rows), len(want.rows))
	}
	for r := range want.rows {
		for c := range want.rows[r] {
			g, w := got.rows[r][c], want.rows[r][c]
			// NaN is not equal to itself: compare its text and type.
			if fmt.Sprintf("%T %#v", g, g) != fmt.Sprintf("%T %#v", w, w) {
				t.Errorf("row %d column %s: streamed %T %#v, driver %T %#v", r+1, want.cols[c].Name, g, g, w, w)
			}
		}
	}
}

// TestStreamCoversOnlyWhatItReads: a query the streaming path does not
// read (more than one statement, not a SELECT, a column of another type,
// an in-memory workspace) is errNoStream before anything runs, and
// Workspace.Adhoc runs it through the driver with the same result as the
// package's Adhoc.
func TestStreamCoversOnlyWhatItReads(t *testing.T) {
	ctx := context.Background()
	ws := openFileWorkspace(t, false)
	for _, q := range []string{
		"CREATE TEMP TABLE x AS SELECT 1 AS a; SELECT a FROM x",
		"CREATE TEMP TABLE y AS SELECT 2 AS a",
		"SELECT [1, 2] AS l",
		"SELECT 1.5::DECIMAL(4,1) AS d",
		"SELECT {'a': 1} AS s, 1 AS n",
		"SELECT INTERVAL 1 DAY AS i",
	} {
		if err := ws.adhocStream(ctx, q, func([]Column, []any) error { return nil }); !errors.Is(err, errNoStream) {
			t.Errorf("%q: adhocStream says %v, want errNoStream", q, err)
		}
	}
	// A read-write workspace streams too.
	if err := ws.adhocStream(ctx, "SELECT 7 AS n", func([]Column, []any) error { return nil }); err != nil {
		t.Errorf("read-write workspace: %v, want a streamed SELECT", err)
	}
	for _, q := range []string{"SELECT [1, 2] AS l, 'x' AS s", "SELECT 1.5::DECIMAL(4,1) AS d", "SELECT 7 AS n"} {
		got, err := collect(func(fn func([]Column, []any) error) error { return ws.Adhoc(ctx, q, fn) })
		if err != nil {
			t.Fatal(err)
		}
		want, err := collect(func(fn func([]Column, []any) error) error { return Adhoc(ctx, ws.Conn(), q, fn) })
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	mem, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.adhocStream(ctx, "SELECT 1", func([]Column, []any) error { return nil }); !errors.Is(err, errNoStream) {
		t.Errorf("in-memory workspace: %v, want errNoStream", err)
	}
}

// TestStreamRunsLockedAndChecked: the streamed query runs with the
// configuration locked (the second connection is on the workspace's own
// instance), a refused statement is refused before anything runs, an
// empty result still gives its columns, and an error of DuckDB while the
// rows stream is returned.
func TestStreamRunsLockedAndChecked(t *testing.T) {
	ctx := context.Background()
	ws := openFileWorkspace(t, true)
	got, err := collect(func(fn func([]Column, []any) error) error {
		return ws.adhocStream(ctx, "SELECT current_setting('lock_configuration') AS locked, current_setting('autoinstall_known_extensions') AS auto", fn)
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.rows) != "[[true false]]" {
		t.Errorf("settings on the streaming connection: %v, want [[true false]]", got.rows)
	}
	if err := ws.Adhoc(ctx, "LOAD httpfs", func([]Column, []any) error { return nil }); !errors.Is(err, ErrRefusedSQL) {
		t.Errorf("LOAD: %v, want ErrRefusedSQL", err)
	}
	var cols []Column
	calls := 0
	err = ws.adhocStream(ctx, "SELECT i AS n FROM range(3) t(i) WHERE i > 5", func(c []Column, row []any) error {
		cols, calls = c, calls+1
		if row != nil {
			t.Errorf("row %v of an empty result", row)
		}
		return nil
	})
	if err != nil || calls != 1 || len(cols) != 1 || cols[0] != (Column{"n", "BIGINT"}) {
		t.Errorf("empty result: err %v, %d calls, columns %v", err, calls, cols)
	}
	n := 0
	err = ws.adhocStream(ctx, "SELECT CASE WHEN i < 5000 THEN i::VARCHAR ELSE error('boom at ' || i) END AS v FROM range(10000) t(i) ORDER BY i", func(_ []Column, row []any) error {
		n++
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "boom at") {
		t.Errorf("error while streaming: %v after %d rows, want DuckDB's boom", err, n)
	}
}

// TestStreamKeepsOrderBy: a streamed result in many chunks comes in the
// order of its ORDER BY (preserve_insertion_order is off in every
// workspace; an ORDER BY fixes the order all the same).
func TestStreamKeepsOrderBy(t *testing.T) {
	ws := openFileWorkspace(t, true)
	const n = 300_000
	next := int64(n - 1)
	err := ws.adhocStream(context.Background(), fmt.Sprintf("SELECT i, 'v' || i AS s FROM range(%d) t(i) ORDER BY i DESC", n), func(_ []Column, row []any) error {
		if row[0] != next || row[1] != fmt.Sprintf("v%d", next) {
			return fmt.Errorf("row %v, want %d", row, next)
		}
		next--
		return nil
	})
	if err != nil || next != -1 {
		t.Fatalf("%v; %d rows missing", err, next+1)
	}
}

// TestQueryErrorsAreTheQuerys: an error DuckDB gives a user's query for
// the query's own sake (syntax, a name, a value, a write on a read-only
// workspace, raised while the rows stream or before) is ErrQuery with
// DuckDB's message unchanged, on the streamed path and the driver's, and
// through Export; a missing file it reads is not, nor a refusal of ub's.
func TestQueryErrorsAreTheQuerys(t *testing.T) {
	ctx := context.Background()
	ws := openFileWorkspace(t, true)
	mem, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	none := func([]Column, []any) error { return nil }
	for _, c := range []struct {
		query, says string
		isQuery     bool
	}{
		{"SELEC 1", "Parser Error: syntax error", true},
		{"SELECT * FROM nosuch", "Catalog Error: Table with name nosuch does not exist", true},
		{"SELECT nosuch FROM range(3)", "Binder Error", true},
		{"SELECT 'a'::INTEGER", "Conversion Error", true},
		{"SELECT CASE WHEN i < 5000 THEN i::VARCHAR ELSE error('boom at ' || i) END AS v FROM range(10000) t(i) ORDER BY i", "Invalid Input Error: boom at 5000", true},
		{"CREATE TABLE t (a INTEGER)", "read-only mode", true},
		{"SELECT * FROM read_csv('/nonexistent/ub-test.csv')", "IO Error", false},
		{"LOAD httpfs", "refused", false},
	} {
		for _, run := range []struct {
			name string
			fn   func() error
		}{
			{"streamed", func() error { return ws.Adhoc(ctx, c.query, none) }},
			{"in memory", func() error {
				if c.query == "CREATE TABLE t (a INTEGER)" {
					return ws.Adhoc(ctx, c.query, none) // the read-only one
				}
				return mem.Adhoc(ctx, c.query, none)
			}},
		} {
			err := run.fn()
			if err == nil || !strings.Contains(err.Error(), c.says) || errors.Is(err, ErrQuery) != c.isQuery {
				t.Errorf("%s %q: %v (ErrQuery %v), want %q, ErrQuery %v", run.name, c.query, err, errors.Is(err, ErrQuery), c.says, c.isQuery)
			}
			if c.isQuery && !strings.HasPrefix(err.Error(), strings.SplitN(c.says, ":", 2)[0]) && c.says != "read-only mode" {
				t.Errorf("%s %q: %q, want DuckDB's message as it is", run.name, c.query, err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	if _, err := Export(ctx, mem.Conn(), "SELECT 'a'::INTEGER", path, "parquet"); !errors.Is(err, ErrQuery) || !strings.HasPrefix(err.Error(), "Conversion Error") {
		t.Errorf("export: %v, want ErrQuery with DuckDB's message", err)
	}
}
