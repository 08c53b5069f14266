package queries

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
)

//go:embed sql/*.sql
var sqlFS embed.FS

// q returns the text of the embedded query file sql/<name>.sql.
func q(name string) string {
	b, err := sqlFS.ReadFile("sql/" + name + ".sql")
	if err != nil {
		panic(fmt.Sprintf("queries: missing embedded sql/%s.sql", name)) // a build defect, not input
	}
	return string(b)
}

// Querier is what the query functions run on: the workspace connection or
// a transaction on it.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// SessionIndexRow is one stored session's identity and size.
type SessionIndexRow struct {
	ID          string
	ContentHash string
	NTurns      int
}

// SessionIndex lists every stored session's id, content hash and turn count.
func SessionIndex(ctx context.Context, db Querier, fn func(SessionIndexRow)) error {
	rows, err := db.QueryContext(ctx, q("session_index"))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r SessionIndexRow
		if err := rows.Scan(&r.ID, &r.ContentHash, &r.NTurns); err != nil {
			return err
		}
		fn(r)
	}
	return rows.Err()
}

// DeleteSession removes a session and its turns.
func DeleteSession(ctx context.Context, db Querier, id string) error {
	if _, err := db.ExecContext(ctx, q("delete_session_turns"), id); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, q("delete_session"), id)
	return err
}

// AddDeveloper records a developer name; an existing name is left as is.
func AddDeveloper(ctx context.Context, db Querier, name string) error {
	_, err := db.ExecContext(ctx, q("add_developer"), name)
	return err
}

// AddRepo records a repository name; an existing name is left as is.
func AddRepo(ctx context.Context, db Querier, name string) error {
	_, err := db.ExecContext(ctx, q("add_repo"), name)
	return err
}

// AddEdge records that developer touched repo, learnt from source
// ("session" or "manifest").
func AddEdge(ctx context.Context, db Querier, developer, repo, source string) error {
	_, err := db.ExecContext(ctx, q("add_edge"), developer, repo, source)
	return err
}

// ClearIngestErrors forgets the errors of an earlier ingest of path.
func ClearIngestErrors(ctx context.Context, db Querier, path string) error {
	_, err := db.ExecContext(ctx, q("clear_ingest_errors"), path)
	return err
}

// AddIngestError records one bad line or file.
func AddIngestError(ctx context.Context, db Querier, path string, line int, reason, format string) error {
	_, err := db.ExecContext(ctx, q("add_ingest_error"), path, line, reason, format)
	return err
}

// Counts are workspace totals.
type Counts struct {
	Sessions, Turns, Developers, Repos, Errors int64
}

// WorkspaceCounts returns the workspace totals.
func WorkspaceCounts(ctx context.Context, db Querier) (Counts, error) {
	var c Counts
	err := db.QueryRowContext(ctx, q("workspace_counts")).Scan(&c.Sessions, &c.Turns, &c.Developers, &c.Repos, &c.Errors)
	return c, err
}
