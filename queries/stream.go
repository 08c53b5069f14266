package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"
	"unsafe"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// The database/sql driver of DuckDB materializes every result before its
// first row is read: a query of ten million rows holds them all in memory.
// A streaming result is not reachable through database/sql, so ub opens a
// second handle on the very database instance the workspace runs on (the
// driver opens every file-backed database from duckdb.GetInstanceCache, and
// the cache hands out the running instance to an open with the same path
// and configuration), and runs the query there through DuckDB's C API
// (duckdb_pending_prepared_streaming, duckdb_fetch_chunk): DuckDB then
// produces one chunk of rows at a time as they are read.
//
// The rows are converted to the Go values the driver would give
// (streamType); a query this path does not cover (more than one
// statement, not a SELECT, a column of another type) runs through the
// driver as before.

// errNoStream says that the streaming path does not cover a query, which
// then runs through the driver.
var errNoStream = errors.New("not streamed")

// Adhoc runs a user's query like the package function Adhoc, streaming the
// rows of a single SELECT from DuckDB instead of holding the whole result
// when the workspace is a file and every column has a type of streamType.
func (ws *Workspace) Adhoc(ctx context.Context, query string, fn func(cols []Column, row []any) error) error {
	if err := CheckUserSQL(query); err != nil {
		return err
	}
	err := ws.adhocStream(ctx, query, fn)
	if errors.Is(err, errNoStream) {
		return Adhoc(ctx, ws.conn, query, fn)
	}
	return err
}

// streamConn is a second connection on the workspace's database instance.
type streamConn struct {
	db   mapping.Database
	conn mapping.Connection
}

func (s *streamConn) close() {
	mapping.Disconnect(&s.conn)
	mapping.Close(&s.db)
}

// openStream opens the second handle on the workspace's instance; an
// in-memory workspace, or a cache that does not give the same instance,
// is errNoStream.
func (ws *Workspace) openStream() (*streamConn, error) {
	if ws.Path == "" || ws.dsn == "" {
		return nil, errNoStream
	}
	// The path and parameters as the driver reads them (NewConnector).
	i := strings.IndexByte(ws.dsn, '?')
	if i < 0 {
		return nil, errNoStream
	}
	u, err := url.Parse(ws.dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoStream, err)
	}
	params := u.Query()
	var config mapping.Config
	if mapping.CreateConfig(&config) == mapping.StateError {
		mapping.DestroyConfig(&config)
		return nil, errNoStream
	}
	defer mapping.DestroyConfig(&config)
	// The configuration the driver opened the instance with (NewConnector:
	// duckdb_api=go, then every DSN parameter): the cache refuses another.
	if mapping.SetConfig(config, "duckdb_api", "go") == mapping.StateError {
		return nil, errNoStream
	}
	for k, v := range params {
		if len(v) > 0 && mapping.SetConfig(config, k, v[0]) == mapping.StateError {
			return nil, errNoStream
		}
	}
	s := &streamConn{}
	var msg string
	if mapping.GetOrCreateFromCache(duckdb.GetInstanceCache(), ws.dsn[:i], &s.db, config, &msg) == mapping.StateError {
		mapping.Close(&s.db)
		return nil, fmt.Errorf("%w: %s", errNoStream, msg)
	}
	if mapping.Connect(s.db, &s.conn) == mapping.StateError {
		mapping.Close(&s.db)
		return nil, errNoStream
	}
	return s, nil
}

// adhocStream runs query on a streaming result, or says errNoStream
// before running anything.
func (ws *Workspace) adhocStream(ctx context.Context, query string, fn func(cols []Column, row []any) error) error {
	s, err := ws.openStream()
	if err != nil {
		return err
	}
	defer s.close()
	if err := lockConfiguration(ctx, ws.conn); err != nil {
		return err
	}
	// The lock is a setting of the instance: the second connection must see
	// it, or it is not on the same instance and runs nothing of the user's.
	if locked, err := s.lockedConfiguration(); err != nil || !locked {
		return errNoStream
	}
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(s.conn, query, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n != 1 {
		return errNoStream // the driver runs them, or says what is wrong
	}
	var stmt mapping.PreparedStatement
	if mapping.PrepareExtractedStatement(s.conn, stmts, 0, &stmt) == mapping.StateError {
		mapping.DestroyPrepare(&stmt)
		return errNoStream
	}
	defer mapping.DestroyPrepare(&stmt)
	if mapping.PreparedStatementType(stmt) != mapping.StatementTypeSelect {
		return errNoStream
	}
	nc := int(mapping.PreparedStatementColumnCount(stmt))
	cols := make([]Column, nc)
	kinds := make([]mapping.Type, nc)
	for i := range nc {
		lt := mapping.PreparedStatementColumnLogicalType(stmt, mapping.IdxT(i))
		t, alias := mapping.GetTypeId(lt), mapping.LogicalTypeGetAlias(lt)
		mapping.DestroyLogicalType(&lt)
		name, ok := streamType[t]
		switch {
		case alias == "JSON" && t == mapping.TypeVarchar:
			t, name = streamJSON, "JSON"
		case !ok || alias != "":
			return errNoStream
		}
		kinds[i] = t
		cols[i] = Column{Name: mapping.PreparedStatementColumnName(stmt, mapping.IdxT(i)), Type: name}
	}

	// From here the query runs: no fallback. DuckDB does its work in
	// execute and in every fetch; an end of ctx interrupts either.
	defer s.interruptOn(ctx)()
	res, err := s.execute(ctx, stmt)
	if err != nil {
		return refusedByDuckDB(err)
	}
	defer mapping.DestroyResult(res)
	vals := make([]any, nc)
	rows := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := mapping.FetchChunk(*res)
		if chunk.Ptr == nil {
			break
		}
		err := readChunk(chunk, kinds, vals, func() error {
			rows++
			return fn(cols, vals)
		})
		mapping.DestroyDataChunk(&chunk)
		if err != nil {
			return err
		}
	}
	if msg := mapping.ResultError(res); msg != "" {
		return errors.Join(ctx.Err(), errors.New(msg))
	}
	if rows == 0 {
		return fn(cols, nil)
	}
	return nil
}

// lockedConfiguration reads lock_configuration on the second connection.
func (s *streamConn) lockedConfiguration() (bool, error) {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if mapping.Query(s.conn, "SELECT current_setting('lock_configuration')", &res) == mapping.StateError {
		return false, errors.New(mapping.ResultError(&res))
	}
	chunk := mapping.FetchChunk(res)
	if chunk.Ptr == nil {
		return false, errors.New("no row")
	}
	defer mapping.DestroyDataChunk(&chunk)
	vals := make([]any, 1)
	var locked bool
	err := readChunk(chunk, []mapping.Type{mapping.TypeBoolean}, vals, func() error {
		locked, _ = vals[0].(bool)
		return nil
	})
	return locked, err
}

// interruptOn interrupts the connection's query when ctx ends, until the
// returned stop is called.
func (s *streamConn) interruptOn(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			mapping.Interrupt(s.conn)
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// execute runs stmt to a streaming result.
func (s *streamConn) execute(ctx context.Context, stmt mapping.PreparedStatement) (*mapping.Result, error) {
	var pending mapping.PendingResult
	if bindings.PendingPreparedStreaming(stmt, &pending) == mapping.StateError {
		err := errors.New(mapping.PendingError(pending))
		mapping.DestroyPending(&pending)
		return nil, err
	}
	defer mapping.DestroyPending(&pending)
	var res mapping.Result
	if mapping.ExecutePending(pending, &res) == mapping.StateError {
		err := errors.Join(ctx.Err(), errors.New(mapping.ResultError(&res)))
		mapping.DestroyResult(&res)
		return nil, err
	}
	return &res, nil
}

// streamType are the column types the streaming path converts, with the
// driver's name of each (Column.Type).
var streamType = map[mapping.Type]string{
	mapping.TypeBoolean:     "BOOLEAN",
	mapping.TypeTinyInt:     "TINYINT",
	mapping.TypeSmallInt:    "SMALLINT",
	mapping.TypeInteger:     "INTEGER",
	mapping.TypeBigInt:      "BIGINT",
	mapping.TypeUTinyInt:    "UTINYINT",
	mapping.TypeUSmallInt:   "USMALLINT",
	mapping.TypeUInteger:    "UINTEGER",
	mapping.TypeUBigInt:     "UBIGINT",
	mapping.TypeFloat:       "FLOAT",
	mapping.TypeDouble:      "DOUBLE",
	mapping.TypeVarchar:     "VARCHAR",
	mapping.TypeBlob:        "BLOB",
	mapping.TypeDate:        "DATE",
	mapping.TypeTimestamp:   "TIMESTAMP",
	mapping.TypeTimestampTZ: "TIMESTAMPTZ",
	mapping.TypeTimestampS:  "TIMESTAMP_S",
	mapping.TypeTimestampMS: "TIMESTAMP_MS",
	mapping.TypeTimestampNS: "TIMESTAMP_NS",
	mapping.TypeHugeInt:     "HUGEINT",
}

// streamJSON stands for a VARCHAR of alias JSON (no DuckDB type has its
// number): the driver gives its value decoded (encoding/json into any).
const streamJSON = mapping.Type(1 << 20)

// readChunk sets vals to each row of chunk in turn, as the driver scans
// them (rows.Next, then database/sql into *any), and calls row.
func readChunk(chunk mapping.DataChunk, kinds []mapping.Type, vals []any, row func() error) error {
	n := int(mapping.DataChunkGetSize(chunk))
	data := make([]unsafe.Pointer, len(kinds))
	mask := make([]unsafe.Pointer, len(kinds))
	for c := range kinds {
		vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(c))
		data[c] = mapping.VectorGetData(vec)
		mask[c] = mapping.VectorGetValidity(vec)
	}
	for r := range n {
		for c, t := range kinds {
			if isNull(mask[c], r) {
				vals[c] = nil
				continue
			}
			if t == streamJSON {
				var v any
				if err := json.Unmarshal([]byte(stringAt(data[c], r)), &v); err != nil {
					return fmt.Errorf("column %d: %w", c+1, err)
				}
				vals[c] = v
				continue
			}
			vals[c] = value(t, data[c], r)
		}
		if err := row(); err != nil {
			return err
		}
	}
	return nil
}

// isNull reads DuckDB's validity mask: one bit a row, 0 for NULL; no mask
// is no NULL.
func isNull(mask unsafe.Pointer, r int) bool {
	if mask == nil {
		return false
	}
	entry := *(*uint64)(unsafe.Add(mask, (r/64)*8))
	return entry&(1<<(r%64)) == 0
}

func at[T any](data unsafe.Pointer, r int) T {
	var zero T
	return *(*T)(unsafe.Add(data, uintptr(r)*unsafe.Sizeof(zero)))
}

// value is the Go value of row r of a flat vector of type t: the driver's
// (duckdb-go's vector getters) for each type of streamType.
func value(t mapping.Type, data unsafe.Pointer, r int) any {
	switch t {
	case mapping.TypeBoolean:
		return at[bool](data, r)
	case mapping.TypeTinyInt:
		return at[int8](data, r)
	case mapping.TypeSmallInt:
		return at[int16](data, r)
	case mapping.TypeInteger:
		return at[int32](data, r)
	case mapping.TypeBigInt:
		return at[int64](data, r)
	case mapping.TypeUTinyInt:
		return at[uint8](data, r)
	case mapping.TypeUSmallInt:
		return at[uint16](data, r)
	case mapping.TypeUInteger:
		return at[uint32](data, r)
	case mapping.TypeUBigInt:
		return at[uint64](data, r)
	case mapping.TypeFloat:
		return at[float32](data, r)
	case mapping.TypeDouble:
		return at[float64](data, r)
	case mapping.TypeVarchar:
		return strings.Clone(stringAt(data, r))
	case mapping.TypeBlob:
		return []byte(stringAt(data, r))
	case mapping.TypeDate:
		d := mapping.FromDate(at[mapping.Date](data, r))
		y, m, day := mapping.DateStructMembers(&d)
		return time.Date(int(y), time.Month(m), int(day), 0, 0, 0, 0, time.UTC)
	case mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		return time.UnixMicro(at[int64](data, r)).UTC()
	case mapping.TypeTimestampS:
		return time.Unix(at[int64](data, r), 0).UTC()
	case mapping.TypeTimestampMS:
		return time.UnixMilli(at[int64](data, r)).UTC()
	case mapping.TypeTimestampNS:
		return time.Unix(0, at[int64](data, r)).UTC()
	case mapping.TypeHugeInt:
		h := at[struct {
			lower uint64
			upper int64
		}](data, r)
		i := big.NewInt(h.upper)
		i.Lsh(i, 64)
		return i.Add(i, new(big.Int).SetUint64(h.lower))
	}
	panic(fmt.Sprintf("queries: no streamed value of DuckDB type %d", t))
}

// stringAt is row r of a vector of duckdb_string_t (16 bytes: a uint32
// length, then up to 12 bytes inline, or past 12 a pointer at offset 8),
// borrowed from DuckDB's memory.
func stringAt(data unsafe.Pointer, r int) string {
	p := unsafe.Add(data, uintptr(r)*16)
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(p, 4)), int(n))
	}
	return unsafe.String(*(**byte)(unsafe.Add(p, 8)), int(n))
}
