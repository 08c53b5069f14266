package queries

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/ub-bench/ub/queries/internal/chunk"
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
	return userQueryError(err)
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
		name, ok := chunk.Types[t]
		switch {
		case alias == "JSON" && t == mapping.TypeVarchar:
			t, name = chunk.JSON, "JSON"
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
	if err := readChunks(ctx, res, kinds, vals, func() error {
		rows++
		return fn(cols, vals)
	}); err != nil {
		return err
	}
	if rows == 0 {
		return fn(cols, nil)
	}
	return nil
}

// readChunks reads res chunk by chunk until it ends, or ctx does, calling
// row with vals holding each row's values (chunk.Read); then the error
// DuckDB recorded on the result, if any.
func readChunks(ctx context.Context, res *mapping.Result, kinds []mapping.Type, vals []any, row func() error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ch := mapping.FetchChunk(*res)
		if ch.Ptr == nil {
			break
		}
		err := chunk.Read(ch, kinds, vals, row)
		mapping.DestroyDataChunk(&ch)
		if err != nil {
			return err
		}
	}
	if msg := mapping.ResultError(res); msg != "" {
		return errors.Join(ctx.Err(), errors.New(msg))
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
	ch := mapping.FetchChunk(res)
	if ch.Ptr == nil {
		return false, errors.New("no row")
	}
	defer mapping.DestroyDataChunk(&ch)
	vals := make([]any, 1)
	var locked bool
	err := chunk.Read(ch, []mapping.Type{mapping.TypeBoolean}, vals, func() error {
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
