package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// ResponseRow is one row of the responses table: the durable answer (or
// final failure) of one request key.
type ResponseRow struct {
	Key          string // sha256 of Request (runner.Request.Key)
	Backend      string // openai | openai-batch | anthropic-batch | mix | ...
	Model        string
	Request      []byte // the canonical request JSON the key hashes
	Text         string // "" when Error is set (stored as NULL)
	TokensIn     int
	TokensOut    int
	LatencyMS    int64
	FinishReason string
	Error        string // "" when answered (stored as NULL)
	Permanent    bool
	Attempts     int
	ViaBatch     bool
	Raw          []byte // the provider's body as received; nil for none (must be valid JSON)
}

// ResponseState is what the runner needs to know of a stored key: whether
// it was answered ("" Error) or failed, and how often it was tried.
type ResponseState struct {
	Error     string
	Permanent bool
	Attempts  int
}

// AppendResponses inserts rows whose keys are not stored yet, through the
// DuckDB appender: one flush, so one transaction, for up to 2048 rows
// (DuckDB's chunk size). It is the fast path of the runner's group commit:
// a DuckDB commit costs milliseconds of CPU, a row microseconds. A key that
// is already stored fails the flush that holds it (nothing of that flush
// is written); use PutResponses then.
func AppendResponses(ctx context.Context, ws *Workspace, rows []ResponseRow) error {
	if len(rows) == 0 {
		return nil
	}
	a, err := ws.tableAppender(ctx, "responses")
	if err != nil {
		return err
	}
	for _, r := range rows {
		v := responseValues(r)
		dv := make([]driver.Value, len(v))
		for i := range v {
			dv[i] = v[i]
		}
		// The appender marshals what a JSON column gets: hand it the JSON
		// itself, or it would store a string holding JSON.
		if json.Valid(r.Request) {
			dv[3] = json.RawMessage(r.Request)
		}
		if len(r.Raw) > 0 && json.Valid(r.Raw) {
			dv[13] = json.RawMessage(r.Raw)
		}
		if err := a.AppendRow(dv...); err != nil {
			a.Close()
			return fmt.Errorf("append response %s: %w", r.Key, err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("append responses: %w", err)
	}
	return nil
}

// PutResponses inserts or replaces rows in one transaction: all of them are
// durable when it returns nil, none when it fails. Keys must be distinct.
// It is the slow path (DuckDB's INSERT OR REPLACE costs milliseconds per
// row): for rows that may replace stored ones.
func PutResponses(ctx context.Context, ws *Workspace, rows []ResponseRow) error {
	if len(rows) == 0 {
		return nil
	}
	return ws.InTx(ctx, func(c *sql.Conn) error {
		stmt, err := c.PrepareContext(ctx, q("responses_put"))
		if err != nil {
			return fmt.Errorf("put responses: %w", err)
		}
		defer stmt.Close()
		for _, r := range rows {
			if _, err := stmt.ExecContext(ctx, responseValues(r)...); err != nil {
				return fmt.Errorf("put response %s: %w", r.Key, err)
			}
		}
		return nil
	})
}

// responseValues are r's column values in table order, with NULL for an
// absent text, error, finish reason or body.
func responseValues(r ResponseRow) []any {
	var text, errText, finish, raw any
	if r.Error == "" {
		text = r.Text
	} else {
		errText = r.Error
	}
	if r.FinishReason != "" {
		finish = r.FinishReason
	}
	if len(r.Raw) > 0 {
		raw = string(r.Raw)
	}
	attempts := max(r.Attempts, 1)
	return []any{r.Key, r.Backend, r.Model, string(r.Request), text,
		int32(r.TokensIn), int32(r.TokensOut), int32(r.LatencyMS), finish, errText,
		r.Permanent, int32(attempts), r.ViaBatch, raw}
}

// loadResponseKeys fills the connection's scratch table of keys.
func loadResponseKeys(ctx context.Context, ws *Workspace, keys []string) error {
	if _, err := ws.conn.ExecContext(ctx, q("responses_prepare_keys")); err != nil {
		return err
	}
	if _, err := ws.conn.ExecContext(ctx, q("responses_clear_keys")); err != nil {
		return err
	}
	a, err := ws.appender(ctx, "temp", "main", "response_keys")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := a.AppendRow(k); err != nil {
			a.Close()
			return err
		}
	}
	return a.Close()
}

// LookupResponses returns the state of every key among keys that has a
// stored row; keys without one are absent from the map.
func LookupResponses(ctx context.Context, ws *Workspace, keys []string) (map[string]ResponseState, error) {
	out := make(map[string]ResponseState)
	if len(keys) == 0 {
		return out, nil
	}
	if err := loadResponseKeys(ctx, ws, keys); err != nil {
		return nil, fmt.Errorf("lookup responses: %w", err)
	}
	rows, err := ws.conn.QueryContext(ctx, q("responses_lookup"))
	if err != nil {
		return nil, fmt.Errorf("lookup responses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var s ResponseState
		if err := rows.Scan(&k, &s.Error, &s.Permanent, &s.Attempts); err != nil {
			return nil, err
		}
		out[k] = s
	}
	return out, rows.Err()
}

// GetResponses returns the full stored row of every key among keys that
// has one.
func GetResponses(ctx context.Context, ws *Workspace, keys []string) (map[string]ResponseRow, error) {
	out := make(map[string]ResponseRow)
	if len(keys) == 0 {
		return out, nil
	}
	if err := loadResponseKeys(ctx, ws, keys); err != nil {
		return nil, fmt.Errorf("get responses: %w", err)
	}
	rows, err := ws.conn.QueryContext(ctx, q("responses_get"))
	if err != nil {
		return nil, fmt.Errorf("get responses: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r ResponseRow
		var req string
		var raw sql.NullString
		if err := rows.Scan(&r.Key, &r.Backend, &r.Model, &req, &r.Text, &r.TokensIn, &r.TokensOut,
			&r.LatencyMS, &r.FinishReason, &r.Error, &r.Permanent, &r.Attempts, &r.ViaBatch, &raw); err != nil {
			return nil, err
		}
		r.Request = []byte(req)
		if raw.Valid {
			r.Raw = []byte(raw.String)
		}
		out[r.Key] = r
	}
	return out, rows.Err()
}

// FailedResponseKeys returns, sorted, the keys stored with an error that
// retrying may fix; with permanentToo, also those with a permanent error.
func FailedResponseKeys(ctx context.Context, db Querier, permanentToo bool) ([]string, error) {
	rows, err := db.QueryContext(ctx, q("responses_failed_keys"), permanentToo)
	if err != nil {
		return nil, fmt.Errorf("failed response keys: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}
