package queries

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// appenderTestTable has a column of every type the appender writes.
const appenderTestTable = `(n INTEGER, s VARCHAR, j JSON, b BOOLEAN, t TIMESTAMP, tz TIMESTAMPTZ, big BIGINT,
	d DOUBLE, f FLOAT, small SMALLINT, tiny TINYINT, u UINTEGER, ub UBIGINT, blob BLOB)`

// appenderTestRow is row i: every column NULL in some rows, strings of
// every length around the 12 bytes DuckDB inlines, longer than the arena's
// blocks, multi-byte UTF-8, JSON with spaces and HTML characters.
func appenderTestRow(i int) []driver.Value {
	var s driver.Value
	switch i % 9 {
	case 0:
		s = nil
	case 1:
		s = ""
	case 2:
		s = strings.Repeat("x", i%13+1) // 1-13 bytes
	case 3:
		s = fmt.Sprintf("héllo wörld %d ✓", i)
	case 4:
		s = strings.Repeat("abcdefghij", 400+i%7)
	case 5:
		s = []byte(fmt.Sprintf("bytes %d", i))
	default:
		s = fmt.Sprintf("%012d", i) // exactly 12 bytes
	}
	if i == 4000 {
		s = strings.Repeat("long ", appender.ArenaBlock/5+1) // past one arena block
	}
	var j driver.Value = json.RawMessage(fmt.Sprintf(`{ "i": %d, "h": "<a&b>" }`, i))
	if i%5 == 0 {
		j = nil
	}
	t := time.Date(2025, 1, 2, 3, 4, 5, (i%1000)*1000, time.UTC).Add(time.Duration(i) * time.Hour)
	var tv, tzv driver.Value = t, t.In(time.FixedZone("x", 3600))
	if i%7 == 0 {
		tv = nil
	}
	var blob driver.Value = []byte{0xff, 0, byte(i)}
	if i%4 == 0 {
		blob = "plain"
	}
	return []driver.Value{int32(i), s, j, i%3 == 0, tv, tzv, int64(i) << 33, float64(i) / 7, float32(i) / 3,
		int16(i % 30000), int8(i % 100), uint32(i), uint64(i) << 40, blob}
}

// TestAppenderMatchesDuckDBGo: rows appended through Appender and through
// duckdb-go's appender (an independent implementation of the same
// conversions) are the same, value for value, over several chunks.
func TestAppenderMatchesDuckDBGo(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, tbl := range []string{"mine", "theirs"} {
		if _, err := ws.Conn().ExecContext(ctx, "CREATE TABLE "+tbl+" "+appenderTestTable); err != nil {
			t.Fatal(err)
		}
	}
	const n = 5000 // three chunks of 2,048
	a, err := ws.tableAppender(ctx, "mine")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := a.AppendRow(appenderTestRow(i)...); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if i == 2500 {
			if err := a.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	err = ws.Conn().Raw(func(c any) error {
		b, err := duckdb.NewAppender(c.(driver.Conn), "", "", "theirs")
		if err != nil {
			return err
		}
		for i := range n {
			if err := b.AppendRow(appenderTestRow(i)...); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
		}
		return b.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows, differ int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM mine`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	// Row by row, every column compared as stored (NULL equal to NULL;
	// JSON and BLOB as bytes).
	q := `SELECT count(*) FROM mine m FULL JOIN theirs t ON m.n = t.n WHERE m.n IS NULL OR t.n IS NULL OR ` +
		`(m.s, m.j::VARCHAR, m.b, m.t, m.tz, m.big, m.d, m.f, m.small, m.tiny, m.u, m.ub, m.blob) IS DISTINCT FROM ` +
		`(t.s, t.j::VARCHAR, t.b, t.t, t.tz, t.big, t.d, t.f, t.small, t.tiny, t.u, t.ub, t.blob)`
	if err := ws.Conn().QueryRowContext(ctx, q).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if rows != n || differ != 0 {
		t.Fatalf("%d rows appended (want %d), %d differ from duckdb-go's", rows, n, differ)
	}
	// And against the values themselves, for a few: a wrong conversion
	// shared with duckdb-go would pass the comparison above.
	var s, j string
	var long int
	var ts time.Time
	err = ws.Conn().QueryRowContext(ctx, `SELECT (SELECT s FROM mine WHERE n = 3), (SELECT j::VARCHAR FROM mine WHERE n = 1),
		(SELECT length(s) FROM mine WHERE n = 4000), (SELECT t FROM mine WHERE n = 1)`).Scan(&s, &j, &long, &ts)
	if err != nil {
		t.Fatal(err)
	}
	if s != "héllo wörld 3 ✓" || j != `{"i":1,"h":"\u003ca\u0026b\u003e"}` || long != (appender.ArenaBlock/5+1)*5 ||
		!ts.Equal(time.Date(2025, 1, 2, 4, 4, 5, 1000, time.UTC)) {
		t.Errorf("got %q, %q, %d, %v", s, j, long, ts)
	}
}

// TestAppenderRefuses: a value the column cannot hold, a string that is
// not UTF-8 and a row of the wrong width are errors naming the table and
// column, and the row is not stored; the rows before and after it are.
func TestAppenderRefuses(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE r (n INTEGER, s VARCHAR, l INTEGER[])`); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.tableAppender(ctx, "r"); err == nil || !strings.Contains(err.Error(), "column 3") {
		t.Fatalf("appender on a table with a LIST column: %v", err)
	}
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE v (n INTEGER, s VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	a, err := ws.tableAppender(ctx, "v")
	if err != nil {
		t.Fatal(err)
	}
	bad := string([]byte{'a', 0xff, 'b'})
	if utf8.ValidString(bad) {
		t.Fatal("test string is valid UTF-8")
	}
	long := strings.Repeat("é", 40) + bad // past the 32-byte ASCII steps
	for _, c := range []struct {
		row  []driver.Value
		want string
	}{
		{[]driver.Value{int32(1), "kept"}, ""},
		{[]driver.Value{int32(2), bad}, "v column 2: not valid UTF-8"},
		// A NULL set before the error: the next row, in the same place of
		// the chunk, must not inherit it.
		{[]driver.Value{nil, bad}, "v column 2: not valid UTF-8"},
		{[]driver.Value{int32(3), long}, "v column 2: not valid UTF-8"},
		{[]driver.Value{"x", "y"}, "v column 1: cannot store a Go string"},
		{[]driver.Value{int32(4)}, "v: 1 values for 2 columns"},
		{[]driver.Value{int32(5), "a", "b"}, "v: more values than its 2 columns"},
		{[]driver.Value{int32(6), strings.Repeat("also kept ", 3)}, ""},
	} {
		err := a.AppendRow(c.row...)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: error %v, want %q", c.row, err, c.want)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := ws.Conn().QueryRowContext(ctx, `SELECT string_agg(n || ':' || s, ',' ORDER BY n) FROM v`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "1:kept,6:also kept also kept also kept "; got != want {
		t.Errorf("stored %q, want %q", got, want)
	}
}

// TestAppenderTypedSetters: the typed setters store their value in a
// column of their type and convert it as AppendRow would in another; past
// the last column they are an error and the row is not stored.
func TestAppenderTypedSetters(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE ty (s VARCHAR, j JSON, n BIGINT, i INTEGER, b BOOLEAN, t TIMESTAMP, u TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	a, err := ws.tableAppender(ctx, "ty")
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2025, 6, 7, 8, 9, 10, 11000, time.UTC)
	r := a.Row()
	r.String("plain").String("quoted").Int32(5).Int32(-6).Bool(true).TimeOrNull(time.Time{}).TimeOrNull(when)
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	r = a.Row()
	r.String("a").String("b").Int32(1).Int32(2).Bool(false).TimeOrNull(when).TimeOrNull(when).Bool(true)
	if err := r.End(); err == nil || !strings.Contains(err.Error(), "more values than its 7 columns") {
		t.Errorf("eight values: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	var s, j string
	var big, i int64
	var b, tNull bool
	var u time.Time
	err = ws.Conn().QueryRowContext(ctx, `SELECT count(*) OVER (), s, j::VARCHAR, n, i, b, t IS NULL, u FROM ty`).
		Scan(&n, &s, &j, &big, &i, &b, &tNull, &u)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || s != "plain" || j != `"quoted"` || big != 5 || i != -6 || !b || !tNull || !u.Equal(when) {
		t.Errorf("stored %d rows: %q %q %d %d %v %v %v", n, s, j, big, i, b, tNull, u)
	}
}

// TestAppenderFloatAndNullableString: Float64 stores a DOUBLE as it is and
// converts into another numeric column as AppendRow would; StringOrNull
// stores "" as NULL and any other string as itself (generations and labels
// are written through them).
func TestAppenderFloatAndNullableString(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE fl (d DOUBLE, f FLOAT, s VARCHAR, e VARCHAR)`); err != nil {
		t.Fatal(err)
	}
	a, err := ws.tableAppender(ctx, "fl")
	if err != nil {
		t.Fatal(err)
	}
	r := a.Row()
	r.Float64(0.1).Float64(2.5).StringOrNull("kept").StringOrNull("")
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var d, f float64
	var s string
	var eNull bool
	if err := ws.Conn().QueryRowContext(ctx, `SELECT d, f, s, e IS NULL FROM fl`).Scan(&d, &f, &s, &eNull); err != nil {
		t.Fatal(err)
	}
	// 0.1 has no exact binary form: the DOUBLE must hold Go's float64 bit
	// for bit; 2.5 is exact in a FLOAT.
	if d != 0.1 || f != 2.5 || s != "kept" || !eNull {
		t.Errorf("stored %v %v %q null=%v; want 0.1 2.5 \"kept\" null=true", d, f, s, eNull)
	}
}

// TestAppenderConstraintError: a flush that breaks a key is an error that
// Close returns too, and no row of the appender is stored.
func TestAppenderConstraintError(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE k (id VARCHAR PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	a, err := ws.tableAppender(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a-long-enough-key", "b", "a-long-enough-key"} {
		if err := a.AppendRow(id); err != nil {
			t.Fatal(err)
		}
	}
	ferr := a.Flush()
	cerr := a.Close()
	if ferr == nil || cerr == nil || !strings.Contains(ferr.Error(), "k: ") || !strings.Contains(strings.ToLower(ferr.Error()), "duplicate key") {
		t.Fatalf("flush: %v; close: %v", ferr, cerr)
	}
	if err := a.AppendRow("c"); err == nil {
		t.Error("append after a failed flush and Close: no error")
	}
	var n int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM k`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d rows stored", n)
	}
}

// BenchmarkAppender appends rows shaped like turns (a 20-byte id, an int,
// a role, 300 bytes of text, a timestamp, a bool, a NULL JSON) through
// Appender, its typed setters and duckdb-go's appender, into a table
// without a key; one op is one row.
func BenchmarkAppender(b *testing.B) {
	ctx := context.Background()
	text := strings.Repeat("refactor the parser ", 15)
	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	row := func(i int) []driver.Value {
		return []driver.Value{"session-000000000001", int32(i), "developer", text, when, false, nil}
	}
	for _, impl := range []string{"ub", "ub-typed", "duckdb-go"} {
		b.Run(impl, func(b *testing.B) {
			ws, err := Open(ctx, filepath.Join(b.TempDir(), "a.duckdb"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE t (s VARCHAR, i INTEGER, r VARCHAR, x VARCHAR, ts TIMESTAMP, c BOOLEAN, m JSON)`); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			switch impl {
			case "ub", "ub-typed":
				a, err := ws.tableAppender(ctx, "t")
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < b.N; i++ {
					if impl == "ub" {
						err = a.AppendRow(row(i)...)
					} else {
						r := a.Row()
						r.String("session-000000000001").Int32(int32(i)).String("developer").String(text).TimeOrNull(when).Bool(false).Value(nil)
						err = r.End()
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				err = a.Close()
			default:
				err = ws.Conn().Raw(func(c any) error {
					a, err := duckdb.NewAppender(c.(driver.Conn), "", "", "t")
					if err != nil {
						return err
					}
					for i := 0; i < b.N; i++ {
						if err := a.AppendRow(row(i)...); err != nil {
							return err
						}
					}
					return a.Close()
				})
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestAppenderJSONAndInt64: Row.JSON stores a JSON value as
// Value(json.RawMessage) does (compacted, HTML characters escaped; empty
// is NULL), and refuses what is not JSON
// with json.Marshal's error; Int64 stores a BIGINT and converts into an
// INTEGER column.
func TestAppenderJSONAndInt64(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, filepath.Join(t.TempDir(), "a.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE TABLE js (k INTEGER, j JSON, v JSON, s VARCHAR, n BIGINT, i INTEGER)`); err != nil {
		t.Fatal(err)
	}
	a, err := ws.tableAppender(ctx, "js")
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(" {\n \"a\" : [1, \"<b>&</b>\"] }")
	r := a.Row()
	r.Int32(1).JSON(raw).Value(json.RawMessage(raw)).String(`{ "x": 1 }`).Int64(1 << 40).Int64(7)
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	r = a.Row()
	r.Int32(2).JSON([]byte{}).JSON(nil).String("short").Int64(0).Int64(0)
	if err := r.End(); err != nil {
		t.Fatal(err)
	}
	r = a.Row()
	r.Int32(3).JSON([]byte(`{"a":}`)).JSON(nil).String("").Int64(0).Int64(0)
	if err := r.End(); err == nil || !strings.Contains(err.Error(), "js column 2: json: error calling MarshalJSON for type json.RawMessage: invalid character '}'") {
		t.Errorf("not JSON: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := ws.Conn().QueryContext(ctx, `SELECT k, coalesce(j::VARCHAR, 'NULL'), coalesce(v::VARCHAR, 'NULL'), s, n, i FROM js ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var k int
		var j, v, s string
		var n, i int64
		if err := rows.Scan(&k, &j, &v, &s, &n, &i); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d|%s|%s|%s|%d|%d", k, j, v, s, n, i))
	}
	want := []string{
		`1|{"a":[1,"\u003cb\u003e\u0026\u003c/b\u003e"]}|{"a":[1,"\u003cb\u003e\u0026\u003c/b\u003e"]}|{ "x": 1 }|1099511627776|7`,
		`2|NULL|NULL|short|0|0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
