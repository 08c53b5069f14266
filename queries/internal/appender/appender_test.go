package appender

import (
	"context"
	"database/sql"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// open makes table with create in an in-memory database and returns an
// appender on it; the database closes with the test.
func open(t *testing.T, ctx context.Context, create, table string) *Appender {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.ExecContext(ctx, create); err != nil {
		t.Fatal(err)
	}
	var a *Appender
	err = c.Raw(func(dc any) error {
		var err error
		a, err = New(dc.(*duckdb.Conn), "", "", table)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestAppenderInlinePadding: a string of up to 12 bytes is stored inside
// its string_t, zero-padded (DuckDB compares the 16 bytes of two inlined
// strings at once), also where a longer string was written before.
func TestAppenderInlinePadding(t *testing.T) {
	ctx := context.Background()
	a := open(t, ctx, `CREATE TABLE p (s VARCHAR)`, "p")
	defer a.Close()
	c := &a.cols[0]
	slot := (*[16]byte)(c.data)
	for _, s := range []string{"twelve bytes", "a longer string than that", "ab"} {
		if err := a.setString(c, 0, s, true); err != nil {
			t.Fatal(err)
		}
	}
	if want := [16]byte{2, 0, 0, 0, 'a', 'b'}; *slot != want {
		t.Errorf("string_t of \"ab\" is % x, want % x", *slot, want)
	}
}

// TestAppenderConnField: the field the appender reads duckdb-go's C
// connection from is there, with its type.
func TestAppenderConnField(t *testing.T) {
	if connField == ^uintptr(0) {
		t.Fatal(errConnField)
	}
}
