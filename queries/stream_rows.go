package queries

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/ub-bench/ub/queries/internal/chunk"
)

// Streaming is the workspace's connection as a Querier whose reads of
// many rows (eachRow: the report's episodes and verdict pairs) DuckDB
// produces one chunk at a time on a second connection of the same
// instance, instead of the whole result before the first row (stream.go):
// a result of millions of rows held whole took gigabytes outside
// memory_limit. Those reads see what is committed: use it outside a
// transaction that has written. An in-memory workspace reads through the
// driver.
func (ws *Workspace) Streaming() Querier { return streamingConn{ws.conn, ws} }

// streamedQueries counts the queries streamRows ran (the tests' witness
// that a read streamed).
var streamedQueries atomic.Int64

type streamingConn struct {
	*sql.Conn
	ws *Workspace
}

// eachRow runs query with args and calls row for each row of its result,
// with scan to read the row's columns into dest as (*sql.Rows).Scan does
// (for the destinations assign takes). On a Streaming querier of a file
// workspace the rows are streamed; elsewhere they come through the
// driver.
func eachRow(ctx context.Context, db Querier, query string, args []any, row func(scan func(dest ...any) error) error) error {
	if s, ok := db.(streamingConn); ok {
		err := s.ws.streamRows(ctx, query, args, func(vals []any) error {
			return row(func(dest ...any) error { return assign(dest, vals) })
		})
		if !errors.Is(err, errNoStream) {
			return err
		}
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// streamRows runs one SELECT with args on a streaming result and calls fn
// with each row's values (as chunk.Read gives them), or says errNoStream
// before fn has seen a row.
func (ws *Workspace) streamRows(ctx context.Context, query string, args []any, fn func(vals []any) error) error {
	s, err := ws.openStream()
	if err != nil {
		return err
	}
	defer s.close()
	var stmt mapping.PreparedStatement
	defer mapping.DestroyPrepare(&stmt)
	if mapping.Prepare(s.conn, query, &stmt) == mapping.StateError {
		return fmt.Errorf("%w: %s", errNoStream, mapping.PrepareError(stmt))
	}
	if mapping.PreparedStatementType(stmt) != mapping.StatementTypeSelect || int(mapping.NParams(stmt)) != len(args) {
		return fmt.Errorf("%w: type %v, %d parameters for %d", errNoStream, mapping.PreparedStatementType(stmt), mapping.NParams(stmt), len(args))
	}
	for i, a := range args {
		idx := mapping.IdxT(i + 1)
		var st mapping.State
		switch v := a.(type) {
		case string:
			st = mapping.BindVarchar(stmt, idx, v)
		case int:
			st = mapping.BindInt64(stmt, idx, int64(v))
		case int64:
			st = mapping.BindInt64(stmt, idx, v)
		case float64:
			st = mapping.BindDouble(stmt, idx, v)
		case bool:
			st = mapping.BindBoolean(stmt, idx, v)
		default:
			return errNoStream
		}
		if st == mapping.StateError {
			return fmt.Errorf("%w: parameter %d", errNoStream, i+1)
		}
	}
	// The columns' types are known once the parameters are bound: they
	// are read from the result. A type chunk.Read does not convert leaves
	// the result unread, to be run again through the driver (ub's own
	// queries have none).
	defer s.interruptOn(ctx)()
	res, err := s.execute(ctx, stmt)
	if err != nil {
		return err
	}
	defer mapping.DestroyResult(res)
	nc := int(mapping.ColumnCount(res))
	kinds := make([]mapping.Type, nc)
	for i := range nc {
		lt := mapping.ColumnLogicalType(res, mapping.IdxT(i))
		t, alias := mapping.GetTypeId(lt), mapping.LogicalTypeGetAlias(lt)
		mapping.DestroyLogicalType(&lt)
		if _, ok := chunk.Types[t]; !ok || alias != "" {
			return fmt.Errorf("%w: column %d of type %v %q", errNoStream, i, t, alias)
		}
		kinds[i] = t
	}
	streamedQueries.Add(1)
	vals := make([]any, nc)
	return readChunks(ctx, res, kinds, vals, func() error { return fn(vals) })
}

// assign sets each of dest to the value of its column in vals, as
// (*sql.Rows).Scan would for the destinations ub's streamed reads use:
// *string, *int, *int64, *float64, *bool, a pointer to a pointer to one
// of these (nil for NULL), *any and any sql.Scanner (sql.NullInt64 and
// the like).
func assign(dest []any, vals []any) error {
	if len(dest) != len(vals) {
		return fmt.Errorf("queries: scan: %d destinations for %d columns", len(dest), len(vals))
	}
	for i, d := range dest {
		v := vals[i]
		bad := func() error {
			return fmt.Errorf("queries: scan: column %d: cannot put %T into %T", i, v, d)
		}
		switch d := d.(type) {
		case sql.Scanner:
			if err := d.Scan(v); err != nil {
				return fmt.Errorf("queries: scan: column %d: %w", i, err)
			}
		case *any:
			*d = v
		case **string:
			if err := assignPtr(d, v); err != nil {
				return bad()
			}
		case **float64:
			if err := assignPtr(d, v); err != nil {
				return bad()
			}
		case **int64:
			if err := assignPtr(d, v); err != nil {
				return bad()
			}
		case **bool:
			if err := assignPtr(d, v); err != nil {
				return bad()
			}
		case *string:
			s, ok := v.(string)
			if !ok {
				return bad()
			}
			*d = s
		case *bool:
			b, ok := v.(bool)
			if !ok {
				return bad()
			}
			*d = b
		case *float64:
			switch v := v.(type) {
			case float64:
				*d = v
			case float32:
				*d = float64(v)
			default:
				return bad()
			}
		case *int, *int64:
			var n int64
			switch v := v.(type) {
			case int8:
				n = int64(v)
			case int16:
				n = int64(v)
			case int32:
				n = int64(v)
			case int64:
				n = v
			case uint8:
				n = int64(v)
			case uint16:
				n = int64(v)
			case uint32:
				n = int64(v)
			default:
				return bad()
			}
			if p, ok := d.(*int); ok {
				*p = int(n)
			} else {
				*d.(*int64) = n
			}
		default:
			return bad()
		}
	}
	return nil
}

// assignPtr sets *d to nil for NULL, else to a new T that assign fills
// from v.
func assignPtr[T any](d **T, v any) error {
	if v == nil {
		*d = nil
		return nil
	}
	x := new(T)
	if err := assign([]any{x}, []any{v}); err != nil {
		return err
	}
	*d = x
	return nil
}
