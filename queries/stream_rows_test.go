package queries

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// scanned is a row of eachRowQuery as its destinations hold it.
type scanned struct {
	s    string
	ps   *string
	i    int
	i64  int64
	pi64 *int64
	f    float64
	pf   *float64
	b    bool
	pb   *bool
	ni   sql.NullInt64
	nf   sql.NullFloat64
	a    any
}

// eachRowQuery has a column for every destination assign takes, with
// NULLs where a pointer or a Null type can hold them, and parameters of
// every type streamRows binds.
const eachRowQuery = `SELECT s, ps, i, i64, pi64, f, pf, b, pb, ni, nf, a FROM (VALUES
  ('short', 'a string longer than twelve', 1::INTEGER, 9223372036854775807::BIGINT, 7::BIGINT, 0.5::DOUBLE, 2.25::DOUBLE, true, false, 3::BIGINT, 1.5::DOUBLE, 'x'),
  ('ü', NULL, (-2147483648)::INTEGER, (-1)::BIGINT, NULL, 1e300::DOUBLE, NULL, false, NULL, NULL, NULL, NULL),
  ('skipped', NULL, 0::INTEGER, 0::BIGINT, NULL, 0::DOUBLE, NULL, false, NULL, NULL, NULL, NULL)
) t(s, ps, i, i64, pi64, f, pf, b, pb, ni, nf, a)
WHERE s <> ?1 AND i > ?2 - 2147483648 - 1 AND f < ?3 AND (b OR NOT ?4) ORDER BY i DESC`

func scanEachRowQuery(t *testing.T, db Querier) (rows []string) {
	t.Helper()
	err := eachRow(context.Background(), db, eachRowQuery, []any{"skipped", int64(0), 1e301, false}, func(scan func(...any) error) error {
		var r scanned
		if err := scan(&r.s, &r.ps, &r.i, &r.i64, &r.pi64, &r.f, &r.pf, &r.b, &r.pb, &r.ni, &r.nf, &r.a); err != nil {
			return err
		}
		show := func(p any) string {
			switch p := p.(type) {
			case *string:
				if p != nil {
					return *p
				}
			case *int64:
				if p != nil {
					return fmt.Sprint(*p)
				}
			case *float64:
				if p != nil {
					return fmt.Sprint(*p)
				}
			case *bool:
				if p != nil {
					return fmt.Sprint(*p)
				}
			}
			return "NULL"
		}
		rows = append(rows, fmt.Sprintf("%s|%s|%d|%d|%s|%g|%s|%v|%s|%v|%v|%#v", r.s, show(r.ps), r.i, r.i64, show(r.pi64), r.f, show(r.pf), r.b, show(r.pb), r.ni, r.nf, r.a))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestEachRowStreamsAsTheDriverScans: on a file workspace's Streaming
// querier eachRow streams (the query counted), binding a parameter of each
// type, and every destination gets what rows.Scan puts into it through the
// driver (the reference); the driver path gives the rows of the hand-made
// table. A workspace opened read-only (ub report, ub view) streams too.
func TestEachRowStreamsAsTheDriverScans(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("read-only=%v", readOnly), func(t *testing.T) { eachRowStreamsAsTheDriverScans(t, readOnly) })
	}
}

func eachRowStreamsAsTheDriverScans(t *testing.T, readOnly bool) {
	ws := openFileWorkspace(t, readOnly)
	before := streamedQueries.Load()
	got := scanEachRowQuery(t, ws.Streaming())
	if streamedQueries.Load() != before+1 {
		t.Errorf("eachRow on Streaming did not stream")
	}
	want := scanEachRowQuery(t, ws.Conn())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("streamed rows\n%s\ndriver's\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	hand := []string{
		"short|a string longer than twelve|1|9223372036854775807|7|0.5|2.25|true|false|{3 true}|{1.5 true}|\"x\"",
		"ü|NULL|-2147483648|-1|NULL|1e+300|NULL|false|NULL|{0 false}|{0 false}|<nil>",
	}
	if strings.Join(want, "\n") != strings.Join(hand, "\n") {
		t.Errorf("driver's rows\n%s\nwant\n%s", strings.Join(want, "\n"), strings.Join(hand, "\n"))
	}
}

// TestEachRowStreamsUnderAnotherMemoryLimit: the report lowers DuckDB's
// memory_limit while it loads (load.Report); the second connection is
// still on the same instance and the read still streams, and sees what
// the first committed.
func TestEachRowStreamsUnderAnotherMemoryLimit(t *testing.T) {
	ws := openFileWorkspace(t, false)
	ctx := context.Background()
	for _, q := range []string{"SET memory_limit = '200MiB'", "CREATE TABLE t AS SELECT range AS n FROM range(5000)"} {
		if _, err := ws.Conn().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	before := streamedQueries.Load()
	var n, sum int64
	err := eachRow(ctx, ws.Streaming(), "SELECT n FROM t ORDER BY n", nil, func(scan func(...any) error) error {
		var x int64
		n++
		sum += x
		if err := scan(&x); err != nil {
			return err
		}
		sum += x
		return nil
	})
	if err != nil || n != 5000 || sum != 4999*5000/2 || streamedQueries.Load() != before+1 {
		t.Errorf("read %d rows summing to %d (%v), streamed %d; want 5000 summing to %d, streamed", n, sum, err, streamedQueries.Load()-before, 4999*5000/2)
	}
}

// TestEachRowRefusesWhatScanRefuses: a NULL into a string, a string into
// a number, and a count of destinations other than the columns' are
// errors on the streamed path as through the driver.
func TestEachRowRefusesWhatScanRefuses(t *testing.T) {
	ws := openFileWorkspace(t, false)
	ctx := context.Background()
	for _, c := range []struct {
		query string
		dest  func() []any
	}{
		{"SELECT NULL::VARCHAR", func() []any { var s string; return []any{&s} }},
		{"SELECT 'x'", func() []any { var f float64; return []any{&f} }},
		{"SELECT 1, 2", func() []any { var i int; return []any{&i} }},
	} {
		for _, db := range []Querier{ws.Streaming(), ws.Conn()} {
			err := eachRow(ctx, db, c.query, nil, func(scan func(...any) error) error { return scan(c.dest()...) })
			if err == nil {
				t.Errorf("%s on %T: no error", c.query, db)
			}
		}
	}
}
