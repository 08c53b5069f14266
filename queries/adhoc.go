package queries

import (
	"context"
	"fmt"
)

// Column is one result column: its name and DuckDB type name.
type Column struct {
	Name string
	Type string
}

// Adhoc runs one SQL statement and calls fn for every row, with the columns
// first seen. Rows are scanned into driver values (string, int64, float64,
// bool, time.Time, []byte, nil, and DuckDB's composite types).
//
// The query is a user's: CheckUserSQL refuses it first (an error wrapping
// ErrRefusedSQL), and the configuration of db is locked for good before
// it runs.
func Adhoc(ctx context.Context, db Querier, query string, fn func(cols []Column, row []any) error) (err error) {
	defer func() { err = userQueryError(err) }()
	if err := CheckUserSQL(query); err != nil {
		return err
	}
	if err := lockConfiguration(ctx, db); err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return refusedByDuckDB(err)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	cols := make([]Column, len(types))
	for i, t := range types {
		cols[i] = Column{Name: t.Name(), Type: t.DatabaseTypeName()}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("row %d: %w", n+1, err)
		}
		if err := fn(cols, vals); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n == 0 {
		return fn(cols, nil)
	}
	return nil
}

// Relations lists the tables and views of the workspace, sorted.
func Relations(ctx context.Context, db Querier) ([]string, error) {
	rows, err := db.QueryContext(ctx, q("relations"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
