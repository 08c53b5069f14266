package queries

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path/filepath"
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

// StoredSession is one stored session's content hash and size.
type StoredSession struct {
	ContentHash string
	NTurns      int
}

// PrepareIngestKeys creates the connection's scratch table for LookupSessions.
func PrepareIngestKeys(ctx context.Context, db Querier) error {
	_, err := db.ExecContext(ctx, q("prepare_ingest_keys"))
	return err
}

// LookupSessions returns the stored sessions whose id is in ids.
func LookupSessions(ctx context.Context, db Querier, ws *Workspace, ids []string) (map[string]StoredSession, error) {
	if _, err := db.ExecContext(ctx, q("clear_ingest_keys")); err != nil {
		return nil, err
	}
	a, err := ws.appender(ctx, "temp", "main", "ingest_keys")
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := a.AppendRow(id); err != nil {
			a.Close()
			return nil, err
		}
	}
	if err := a.Close(); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q("lookup_sessions"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[string]StoredSession{}
	for rows.Next() {
		var id string
		var s StoredSession
		if err := rows.Scan(&id, &s.ContentHash, &s.NTurns); err != nil {
			return nil, err
		}
		byID[id] = s
	}
	return byID, rows.Err()
}

// SessionsAny reports whether the workspace holds any session.
func SessionsAny(ctx context.Context, db Querier) (bool, error) {
	var found bool
	err := db.QueryRowContext(ctx, q("sessions_any")).Scan(&found)
	return found, err
}

// IngestErrorsAny reports whether the workspace holds any ingest error.
func IngestErrorsAny(ctx context.Context, db Querier) (bool, error) {
	var found bool
	err := db.QueryRowContext(ctx, q("ingest_errors_any")).Scan(&found)
	return found, err
}

// DeleteSession removes a session and its turns.
func DeleteSession(ctx context.Context, db Querier, id string) error {
	if _, err := db.ExecContext(ctx, q("delete_session_turns"), id); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, q("delete_session"), id)
	return err
}

// Names calls fn for every stored developer (kind "developer", a = name),
// repository ("repo", a = name) and edge ("edge", a = developer, b = repo,
// c = source).
func Names(ctx context.Context, db Querier, fn func(kind, a, b, c string)) error {
	rows, err := db.QueryContext(ctx, q("names"))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind, a, b, c string
		if err := rows.Scan(&kind, &a, &b, &c); err != nil {
			return err
		}
		fn(kind, a, b, c)
	}
	return rows.Err()
}

// Orphans are names a replacement left without any session or edge.
type Orphans struct {
	Edges      [][2]string // developer, repo of removed session edges
	Developers []string
	Repos      []string
}

// RemoveOrphans deletes session edges without sessions, then developers
// and repositories with neither sessions nor edges (what a replaced
// session's old identity leaves behind), and returns what it removed.
func RemoveOrphans(ctx context.Context, db Querier) (Orphans, error) {
	var o Orphans
	rows, err := db.QueryContext(ctx, q("orphan_edges"))
	if err != nil {
		return o, err
	}
	for rows.Next() {
		var d, r string
		if err := rows.Scan(&d, &r); err != nil {
			rows.Close()
			return o, err
		}
		o.Edges = append(o.Edges, [2]string{d, r})
	}
	rows.Close()
	for _, x := range []struct {
		query string
		dst   *[]string
	}{{"orphan_developers", &o.Developers}, {"orphan_repos", &o.Repos}} {
		rows, err := db.QueryContext(ctx, q(x.query))
		if err != nil {
			return o, err
		}
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return o, err
			}
			*x.dst = append(*x.dst, n)
		}
		rows.Close()
	}
	return o, nil
}

// ClearIngestErrors forgets the errors of an earlier ingest of path.
func ClearIngestErrors(ctx context.Context, db Querier, path string) error {
	_, err := db.ExecContext(ctx, q("clear_ingest_errors"), path)
	return err
}

// ClearIngestErrorsUnder forgets the errors of an earlier ingest of every
// file under the folder dir, also of files no longer there.
func ClearIngestErrorsUnder(ctx context.Context, db Querier, dir string) error {
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	_, err := db.ExecContext(ctx, q("clear_ingest_errors_under"), prefix)
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
