package synth

import (
	"context"
	"errors"
	"fmt"

	"github.com/ub-bench/ub/queries"
)

// chunkRows is how many rows a synthetic study writes per transaction. One
// transaction for the whole study held every row in DuckDB's transaction
// storage and every appender's buffer until the commit, so memory and the
// commit grew with the scale (1.9 GB at UserBench 100x). A chunk is large
// enough that DuckDB writes its row groups (122,880 rows) straight to the
// file, and small enough that its buffers stay well inside the workspace's
// memory_limit.
var chunkRows = 400_000

// afterCommit, if not nil, is called after each commit of a chunkWriter with
// the rows that transaction held (tests: the bound on a transaction, and a
// failure after a commit).
var afterCommit func(rows int)

// chunkWriter is a queries.RowWriter whose rows are committed every
// chunkRows rows: call Row after each row, or after each group of rows that
// belongs together (a commit never falls inside a group), and Commit at the
// end. The first error is kept; Row returns it.
type chunkWriter struct {
	*queries.RowWriter
	ctx   context.Context
	ws    *queries.Workspace
	limit int
	rows  int // since the last commit
	open  bool
	err   error
}

// newChunkWriter begins the first transaction.
func newChunkWriter(ctx context.Context, ws *queries.Workspace, limit int) *chunkWriter {
	w := &chunkWriter{ctx: ctx, ws: ws, limit: limit}
	w.begin()
	return w
}

// begin begins a transaction and a RowWriter in it; after an error, the
// RowWriter keeps the error and appends nothing.
func (w *chunkWriter) begin() {
	w.RowWriter = queries.NewRowWriter(w.ctx, w.ws)
	if w.err == nil {
		if _, err := w.ws.Conn().ExecContext(w.ctx, "BEGIN TRANSACTION"); err != nil {
			w.err = err
		} else {
			w.open = true
		}
	}
	if w.err != nil {
		w.RowWriter.Fail(w.err)
	}
}

// Row counts n rows given since the last call and commits the transaction
// once it holds limit rows.
func (w *chunkWriter) Row(n int) error {
	w.rows += n
	if w.err == nil && w.rows >= w.limit {
		w.commit()
		w.begin()
	}
	return w.err
}

func (w *chunkWriter) commit() {
	if !w.open {
		return
	}
	if err := w.RowWriter.Close(); err != nil && w.err == nil {
		w.err = err
	}
	if w.err != nil {
		w.rollback()
		return
	}
	w.open = false
	if _, err := w.ws.Conn().ExecContext(w.ctx, "COMMIT"); err != nil {
		w.err = err
		return
	}
	if afterCommit != nil {
		afterCommit(w.rows)
	}
	w.rows = 0
}

func (w *chunkWriter) rollback() {
	if w.open {
		w.RowWriter.Close()
		if _, err := w.ws.Conn().ExecContext(context.WithoutCancel(w.ctx), "ROLLBACK"); err != nil {
			w.err = errors.Join(w.err, err)
		}
		w.open = false
	}
}

// Commit flushes and commits what is left; after an error it rolls the
// open transaction back and returns the error. fn, if not nil, runs in the
// last transaction before it commits (and is skipped after an error).
func (w *chunkWriter) Commit(fn func() error) error {
	if w.err == nil && fn != nil {
		if err := w.RowWriter.Close(); err != nil {
			w.err = err
		} else if err := fn(); err != nil {
			w.err = err
		}
	}
	w.commit()
	w.rollback()
	return w.err
}

// clearStudy deletes, in one transaction, every row a synthetic study
// writes: a study written in chunks that fails after its first commit
// leaves its workspace as it found it (empty, as Write and WriteFidelity
// require), not half-written. It runs even when ctx is cancelled.
func clearStudy(ctx context.Context, ws *queries.Workspace, cause error) error {
	ctx = context.WithoutCancel(ctx)
	if err := queries.ClearSyntheticStudy(ctx, ws); err != nil {
		return errors.Join(cause, fmt.Errorf("synth: clearing the partly written study: %w", err))
	}
	return cause
}
