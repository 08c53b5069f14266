package queries

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/ub-bench/ub/queries/internal/appender"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// Workspace is one open ub database file.
type Workspace struct {
	DB   *sql.DB
	Path string // "" for an in-memory workspace
	conn *sql.Conn
	dsn  string // the driver's data source name, for openStream
}

// ErrLocked is returned by Open when another process holds the workspace.
var ErrLocked = errors.New("workspace is in use by another process")

// ErrNotWorkspace is returned by Open for a file that is not a DuckDB
// database (an SQLite file, a log, a CSV given as --db).
var ErrNotWorkspace = errors.New("not a ub workspace")

// ErrNewerSchema is returned by Open for a workspace whose schema a newer
// ub wrote: this ub would misread it.
var ErrNewerSchema = errors.New("workspace written by a newer ub")

// duckdbMagic is DuckDB's file magic, at byte 8 of every database file
// (after the header checksum; DuckDB's storage format, MainHeader::MAGIC_BYTES).
const duckdbMagic = "DUCK"

// checkWorkspaceFile refuses an existing, non-empty file that does not
// carry DuckDB's magic bytes. A missing or empty file is a new workspace.
func checkWorkspaceFile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open workspace %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return fmt.Errorf("open workspace %s: %w: it is a directory", path, ErrNotWorkspace)
	}
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if n >= 12 && string(head[8:12]) == duckdbMagic {
		return nil
	}
	kind := "not a DuckDB database"
	if strings.HasPrefix(string(head[:n]), "SQLite format 3") {
		kind = "an SQLite database, not a DuckDB one"
	}
	return fmt.Errorf("open workspace %s: %w: the file is %s; name a ub workspace (or a new file) with --db", path, ErrNotWorkspace, kind)
}

// Options configures Open. The zero value opens read-write and migrates.
type Options struct {
	ReadOnly bool
	// MemoryLimit is DuckDB's memory_limit for this process ("512MiB",
	// "2GB"); "" is DefaultMemoryLimit. DuckDB spills what does not fit to
	// a temporary directory beside the workspace and removes it on close.
	MemoryLimit string
	// creating is set by create: the workspace is new, and a stopped
	// migration leaves none.
	creating bool
}

// DefaultMemoryLimit bounds what DuckDB holds in memory, whatever the size
// of the input: ingest, probes and reports stream their work through it and
// spill to disk past it. DuckDB's own default is 80% of the machine, which
// lets a large ingest grow to gigabytes for no gain in speed. ub --memory-limit
// (or UB_MEMORY_LIMIT) overrides it.
const DefaultMemoryLimit = "512MiB"

// memorySettings are the DSN settings of the process's memory: the limit,
// and preserve_insertion_order off, which lets DuckDB stream an INSERT ...
// SELECT or COPY without holding its input in order. Every query of ub that
// needs an order says ORDER BY.
func memorySettings(limit string) (string, error) {
	if limit == "" {
		limit = DefaultMemoryLimit
	}
	if err := CheckMemoryLimit(limit); err != nil {
		return "", fmt.Errorf("memory limit %w", err)
	}
	return "&memory_limit=" + strings.ReplaceAll(limit, " ", "") + "&preserve_insertion_order=false", nil
}

// CheckMemoryLimit says whether limit is a size DuckDB's memory_limit takes
// (a number and a unit: DuckDB refuses a bare number) and that is at least
// MinMemoryLimit.
func CheckMemoryLimit(limit string) error {
	m := memoryLimitRE.FindStringSubmatch(limit)
	if m == nil {
		return fmt.Errorf("%q: want a size with its unit, such as 512MiB, 2GB or 4GiB", limit)
	}
	n, _ := strconv.ParseFloat(m[1], 64) // the pattern admits only numbers
	if n*memoryUnits[m[3]] < minMemoryLimitBytes {
		return fmt.Errorf("%q: want at least %s (DuckDB cannot open a workspace and ingest a small file in less)", limit, MinMemoryLimit)
	}
	return nil
}

// MinMemoryLimit is the least memory limit ub takes: with 2MiB DuckDB
// opens a workspace but runs out of memory ingesting a three-session file,
// with 1MiB it cannot open one (measured with DuckDB 1.5).
const (
	MinMemoryLimit      = "4MiB"
	minMemoryLimitBytes = 4 << 20
)

var memoryLimitRE = regexp.MustCompile(`^\s*([0-9]+(\.[0-9]+)?)\s*([KMGT]i?B|[KMGT]|B)\s*$`)

// memoryUnits are the bytes of each unit memoryLimitRE takes, as DuckDB
// reads them: KB, MB, ... and K, M, ... in powers of 1000, KiB, MiB, ...
// in powers of 1024.
var memoryUnits = map[string]float64{
	"B": 1, "K": 1e3, "KB": 1e3, "KiB": 1 << 10, "M": 1e6, "MB": 1e6, "MiB": 1 << 20,
	"G": 1e9, "GB": 1e9, "GiB": 1 << 30, "T": 1e12, "TB": 1e12, "TiB": 1 << 40,
}

var lockRE = regexp.MustCompile(`(?i)could not set lock on file`)

// Open opens (creating if needed) the workspace at path and applies any
// schema migration not yet applied. path "" opens an in-memory workspace,
// for tests. A workspace held by another writing process gives an error
// wrapping ErrLocked: DuckDB's file lock guarantees at most one writer, so a
// second ub never corrupts the file.
func Open(ctx context.Context, path string, opts Options) (*Workspace, error) {
	if err := checkWorkspaceFile(path); err != nil {
		return nil, err
	}
	if path != "" && !opts.ReadOnly {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := create(ctx, path, opts.MemoryLimit); err != nil {
				return nil, err
			}
		}
	}
	return open(ctx, path, opts)
}

// create makes a new, fully migrated workspace at path: it is migrated
// under a temporary name in the same directory and linked into place only
// when whole, so an interrupted creation leaves no workspace (a killed one
// leaves the hidden temporary file, which the next creation of the same
// workspace removes once it is stale: removeStaleCreations). A workspace another process created
// meanwhile is kept as it is.
func create(ctx context.Context, path, memoryLimit string) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "." // beside the workspace, not in os.TempDir: os.Link needs the same file system
	}
	removeStaleCreations(dir, base)
	tmp, err := os.CreateTemp(dir, "."+base+".new-*")
	if err != nil {
		return createError(path, "", err)
	}
	name := tmp.Name()
	tmp.Close()
	// DuckDB refuses an empty file: the name is reserved, the file is
	// DuckDB's to make. Its log, if any, is beside it.
	os.Remove(name)
	defer os.Remove(name + ".wal")
	defer os.Remove(name)
	ws, err := open(ctx, name, Options{MemoryLimit: memoryLimit, creating: true})
	if err != nil {
		return createError(path, name, err)
	}
	if err := ws.Close(); err != nil {
		return createError(path, name, err)
	}
	if err := os.Link(name, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return createError(path, name, err)
	}
	return nil
}

// createError is err of creating the workspace at path, speaking of path
// alone: the temporary name (tmp, or the one a failed os.CreateTemp
// names) is create's own, no file of the user's.
func createError(path, tmp string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	case tmp != "" && strings.Contains(err.Error(), tmp):
		err = &renamedError{strings.ReplaceAll(err.Error(), tmp, path), err}
	}
	return fmt.Errorf("create workspace %s: %w", path, err)
}

// renamedError is an error whose text names another file than the one it
// wraps names.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// staleCreation is the age past which a temporary workspace that create
// left (a process killed while it migrated, which takes well under a
// second) is taken for abandoned.
const staleCreation = 10 * time.Minute

// removeStaleCreations removes the temporaries of earlier creations of
// base in dir that a killed ub left: files named as create names them
// (".BASE.new-" and digits), empty or a DuckDB file, untouched for
// staleCreation, with their write-ahead logs. Anything else of that name is
// not ub's and is left alone; failures are ignored (the new creation does
// not need them gone).
func removeStaleCreations(dir, base string) {
	if dir == "" {
		dir = "."
	}
	prefix := "." + base + ".new-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		digits, ok := strings.CutPrefix(name, prefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < staleCreation {
			continue
		}
		p := filepath.Join(dir, name)
		if fi.Size() > 0 && !hasDuckDBMagic(p) {
			continue
		}
		if os.Remove(p) == nil {
			os.Remove(p + ".wal")
		}
	}
}

// hasDuckDBMagic says whether the file at p begins as a DuckDB database.
func hasDuckDBMagic(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 12)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head[8:12]) == duckdbMagic
}

func open(ctx context.Context, path string, opts Options) (*Workspace, error) {
	// ub never reaches the network on its own: DuckDB would otherwise
	// download and load an extension for a file or function it does not
	// know (an SQLite file given as --db, a parquet URL in ub sql); see
	// extensionSettings and CheckUserSQL.
	mem, err := memorySettings(opts.MemoryLimit)
	if err != nil {
		return nil, err
	}
	dsn := path + "?" + extensionSettings + mem
	if opts.ReadOnly && path != "" {
		dsn += "&access_mode=read_only"
	}
	connector, err := duckdb.NewConnector(dsn, nil)
	if err != nil {
		return nil, openError(path, err)
	}
	db := sql.OpenDB(connector)
	// One connection: every statement, transaction and appender of a ub
	// process runs on it, so temporary views and transactions are visible.
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	ws := &Workspace{DB: db, Path: path, conn: conn, dsn: dsn}
	// ub_words is known to every statement, the migrations included
	// (0010 counts the words of the generations stored before it).
	if err := registerWords(ctx, conn); err != nil {
		ws.Close()
		return nil, openError(path, err)
	}
	if !opts.ReadOnly {
		if err := ws.migrate(ctx, opts.creating || path == ""); err != nil {
			ws.Close()
			return nil, err
		}
	} else if err := ws.checkMigrated(ctx); err != nil {
		ws.Close()
		return nil, err
	}
	return ws, nil
}

func openError(path string, err error) error {
	if lockRE.MatchString(err.Error()) {
		pid := ""
		if m := regexp.MustCompile(`PID (\d+)`).FindStringSubmatch(err.Error()); m != nil {
			pid = " (pid " + m[1] + ")"
		}
		return fmt.Errorf("open %s: %w%s; wait for it to finish or use another --db", path, ErrLocked, pid)
	}
	return fmt.Errorf("open workspace %s: %w", path, err)
}

// Conn is the workspace's single connection.
func (ws *Workspace) Conn() *sql.Conn { return ws.conn }

// Close closes the workspace.
func (ws *Workspace) Close() error {
	var err error
	if ws.conn != nil {
		err = ws.conn.Close()
	}
	if cerr := ws.DB.Close(); err == nil {
		err = cerr
	}
	return err
}

// tableAppender returns an appender on table, for bulk loads on the
// workspace connection. Close it (which flushes) before committing.
func (ws *Workspace) tableAppender(ctx context.Context, table string) (*appender.Appender, error) {
	return ws.appender(ctx, "", "", table)
}

func (ws *Workspace) appender(ctx context.Context, catalog, schema, table string) (*appender.Appender, error) {
	var app *appender.Appender
	err := ws.conn.Raw(func(c any) error {
		dc, ok := c.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("the workspace connection is a %T, not a DuckDB one", c)
		}
		var err error
		app, err = appender.New(dc, catalog, schema, table)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("appender on %s: %w", table, err)
	}
	return app, nil
}

// Migration is one numbered schema file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded schema files in version order.
func Migrations() ([]Migration, error) {
	names, err := fs.Glob(schemaFS, "schema/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, n := range names {
		base := strings.TrimPrefix(n, "schema/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("schema file %s: name must be NNNN_name.sql", n)
		}
		b, err := schemaFS.ReadFile(n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: base, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// migrationHook, when set (by tests), is called in the transaction of each
// migration before it runs; an error stops the migration there, as SIGINT
// would.
var migrationHook func(Migration) error

// migrate applies, in order, the migrations not yet recorded in
// schema_migrations (wtf's migrate): each in its own transaction, so that
// one stopped keeps those before it, but all in one on a workspace being
// created (new is true: a file create makes, or one in memory), which a
// stop leaves nowhere (and one commit is cheaper than twenty).
func (ws *Workspace) migrate(ctx context.Context, new bool) error {
	if _, err := ws.conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	ms, err := Migrations()
	if err != nil {
		return err
	}
	if err := ws.checkNotNewer(ctx, ms); err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := ws.conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("migrate: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var pending []Migration
	for _, m := range ms {
		if !applied[m.Version] {
			pending = append(pending, m)
		}
	}
	apply := func(tx *sql.Conn, m Migration) error {
		if migrationHook != nil {
			if err := migrationHook(m); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, ?)`, m.Version, m.Name)
		return err
	}
	if new && len(applied) == 0 && len(pending) > 0 {
		var at Migration
		if err := ws.InTx(ctx, func(tx *sql.Conn) error {
			for _, m := range pending {
				at = m
				if err := apply(tx, m); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			if at.Name == "" {
				return fmt.Errorf("migrate: %w", err)
			}
			return fmt.Errorf("migration %s: %w", at.Name, err)
		}
		return nil
	}
	for _, m := range pending {
		if err := ws.InTx(ctx, func(tx *sql.Conn) error { return apply(tx, m) }); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

func (ws *Workspace) checkMigrated(ctx context.Context) error {
	ms, err := Migrations()
	if err != nil {
		return err
	}
	var have int
	err = ws.conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&have)
	if err != nil {
		return fmt.Errorf("open %s read-only: not a ub workspace (run ub ingest first): %w", ws.Path, err)
	}
	if err := ws.checkNotNewer(ctx, ms); err != nil {
		return err
	}
	if want := ms[len(ms)-1].Version; have < want {
		return fmt.Errorf("open %s read-only: schema version %d, this ub needs %d; migrate it (nothing else changes) with: ub --db %s sql --write 'SELECT 1'", ws.Path, have, want, ws.Path)
	}
	return nil
}

// checkNotNewer refuses a workspace holding a migration this ub does not
// know: a newer ub wrote it, and this one would misread or damage it.
func (ws *Workspace) checkNotNewer(ctx context.Context, ms []Migration) error {
	var have int
	if err := ws.conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("open %s: %w", ws.Path, err)
	}
	if mine := ms[len(ms)-1].Version; have > mine {
		return fmt.Errorf("open %s: %w: its schema version is %d, this ub knows versions up to %d; use a newer ub", ws.Path, ErrNewerSchema, have, mine)
	}
	return nil
}

// InTx runs fn in a transaction on the workspace connection: committed when
// fn returns nil, rolled back otherwise, so nothing is half-written.
func (ws *Workspace) InTx(ctx context.Context, fn func(c *sql.Conn) error) error {
	if _, err := ws.conn.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	if err := fn(ws.conn); err != nil {
		if _, rerr := ws.conn.ExecContext(context.Background(), "ROLLBACK"); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	}
	_, err := ws.conn.ExecContext(ctx, "COMMIT")
	return err
}

// CheckpointOnCommit makes the commit of the open transaction a checkpoint:
// DuckDB writes the changes to the database file once, not first to its
// write-ahead log and then again when the workspace is closed (or the log
// outgrows checkpoint_threshold). Use it on a transaction the workspace is
// closed after; ResetCheckpointOnCommit undoes it once the transaction has
// ended. noFSST leaves FSST out of that checkpoint: on the episodes of
// corpus/tau2 its analysis took about a third of the checkpoint and won 1%
// of the file, but the turn text of sessions it compresses to a third (a
// checkpoint without it stored 60 MB of sessions in 38 MB instead of 19).
func CheckpointOnCommit(ctx context.Context, c *sql.Conn, noFSST bool) error {
	qs := []string{"SET checkpoint_threshold = '0b'"}
	if noFSST {
		qs = append(qs, "SET disabled_compression_methods = 'fsst'")
	}
	for _, q := range qs {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("checkpoint on commit: %w", err)
		}
	}
	return nil
}

// ResetCheckpointOnCommit restores what CheckpointOnCommit changed to
// DuckDB's defaults (ub sets neither otherwise, but for DeferCheckpoints).
func ResetCheckpointOnCommit(ctx context.Context, c *sql.Conn) error {
	for _, q := range []string{"RESET checkpoint_threshold", "RESET disabled_compression_methods"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("checkpoint on commit: %w", err)
		}
	}
	return nil
}

// DeferCheckpoints keeps DuckDB from checkpointing after each commit of a
// long write (its automatic checkpoint follows any commit once the
// write-ahead log outgrows checkpoint_threshold, 16 MiB): every checkpoint
// writes each table's primary-key index whole, so a write committed in
// chunks paid for its indexes once per chunk, and its time grew faster
// than its rows. The log grows instead (on disk, about the size of what
// is written) and the workspace's close checkpoints once. restore sets
// the threshold back to DuckDB's default, which ub does not change.
func DeferCheckpoints(ctx context.Context, c *sql.Conn) (restore func(context.Context) error, err error) {
	if _, err := c.ExecContext(ctx, "SET checkpoint_threshold = '1TB'"); err != nil {
		return nil, fmt.Errorf("defer checkpoints: %w", err)
	}
	return func(ctx context.Context) error {
		if _, err := c.ExecContext(ctx, "RESET checkpoint_threshold"); err != nil {
			return fmt.Errorf("defer checkpoints: %w", err)
		}
		return nil
	}, nil
}

// A Setting changes a setting of the connection's database and returns a
// function that sets it back (DeferCheckpoints, LimitThreads,
// ScaleMemoryLimit).
type Setting func(ctx context.Context, c *sql.Conn) (restore func(context.Context) error, err error)

// ApplySettings applies settings in order. When one fails, those already
// applied are set back and its error is returned. restore sets every one
// back, the last first, and returns their errors joined.
func ApplySettings(ctx context.Context, c *sql.Conn, settings ...Setting) (restore func(context.Context) error, err error) {
	var undo []func(context.Context) error
	restore = func(ctx context.Context) error {
		var errs []error
		for i := len(undo) - 1; i >= 0; i-- {
			errs = append(errs, undo[i](ctx))
		}
		return errors.Join(errs...)
	}
	for _, set := range settings {
		r, err := set(ctx, c)
		if err != nil {
			return nil, errors.Join(err, restore(context.WithoutCancel(ctx)))
		}
		undo = append(undo, r)
	}
	return restore, nil
}

// Threads is the Setting of LimitThreads(n).
func Threads(n int) Setting {
	return func(ctx context.Context, c *sql.Conn) (func(context.Context) error, error) {
		return LimitThreads(ctx, c, n)
	}
}

// MemoryShare is the Setting of ScaleMemoryLimit(share, floor).
func MemoryShare(share float64, floor int64) Setting {
	return func(ctx context.Context, c *sql.Conn) (func(context.Context) error, error) {
		return ScaleMemoryLimit(ctx, c, share, floor)
	}
}

// BulkWriteThreads is how many threads DuckDB runs while ub ingest or ub
// synth writes. Both make their rows in Go, on every core, and hand DuckDB
// appends, a task too small to split: its worker threads spent their time
// waking and waiting. With one, CPU time fell by about a quarter (ingest of
// 100 MB of sessions: 2.0 s instead of 2.7; 400 MB: 9.1 s instead of 14.5;
// 100 times the tau2 results: 56-57 s instead of 64-65; synth at 10x:
// UserBench 8.1-8.5 s instead of 8.6-10.4, fidelity 2.4 s instead of
// 2.9-3.3), peak RSS fell with it, and wall time did not grow.
const BulkWriteThreads = 1

// ReadAllThreads is how many threads DuckDB runs while the report reads
// every episode with its counts (ep_report_episodes.sql,
// fidelity_episodes.sql, fidelity_verdict_pairs.sql): aggregates and
// joins of a row an episode, which spill. With two, the episodes of
// ub synth --study fidelity --scale 381 and its 5.9 million verdicts ran
// out of memory now and then at 256 and 384 MiB, and completed at
// 512 MiB in 4.8-5.4 s; with one they completed at 128, 192, 256 and
// 384 MiB in 10.1, 8.3, 6.4 and 5.8 s.
const ReadAllThreads = 1

// LimitThreads sets DuckDB's threads to n on the connection's database
// and returns a function that sets back the number it had.
func LimitThreads(ctx context.Context, c *sql.Conn, n int) (restore func(context.Context) error, err error) {
	var was int
	if err := c.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&was); err != nil {
		return nil, fmt.Errorf("threads: %w", err)
	}
	set := func(ctx context.Context, n int) error {
		if _, err := c.ExecContext(ctx, fmt.Sprintf("SET threads = %d", n)); err != nil {
			return fmt.Errorf("threads: %w", err)
		}
		return nil
	}
	if err := set(ctx, n); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { return set(ctx, was) }, nil
}

// IngestMemoryShare is the share of the workspace's memory_limit that DuckDB
// keeps while ub ingest writes (ScaleMemoryLimit), but not less than
// IngestMemoryFloor: 128 MiB of the default 512 MiB. An ingest only
// appends: what DuckDB holds past its write buffers is mostly a cache of
// table blocks already written to the file, which it fills up to the limit
// before it evicts anything. The rest of the process (the binary, parsing,
// batches, appender chunks, DuckDB's memory outside its buffer pool) took
// about 250-300 MiB more. Ingest of 100 times corpus/tau2/results (1.5 GB)
// peaked at 791 MiB with DuckDB at the full 512 MiB, 549 MiB at half,
// 480-492 MiB at 192 MiB and 376-403 MiB at 128 MiB (three runs each, the
// same minutes; CPU time within their noise).
const IngestMemoryShare = 0.25

// IngestMemoryFloor is the least memory_limit ingest gives DuckDB (the
// workspace's own limit when that is smaller): a transaction's appended
// rows wait in memory for a whole row group before they are written, and
// with 16 MiB (a quarter of --memory-limit 64MiB) DuckDB could not pin a
// block for the turns.
const IngestMemoryFloor = 32 << 20

// ImportMemoryShare is the share of the workspace's memory_limit that DuckDB
// keeps while ub verdicts import stages, checks and stores a file
// (ScaleMemoryLimit), but not less than ImportMemoryFloor: 256 MiB of the
// default 512 MiB. The rest of the process (the binary, the appender's
// chunks, DuckDB's memory outside its buffer pool while it joins the staged
// lines to the workspace and inserts them) took about 300 MiB more at one
// million episodes. The import of the 5.9 million verdicts of
// ub synth --study fidelity --scale 381 peaked at 898-983 MiB with DuckDB
// at the full 512 MiB, 776 MiB at 384 MiB and 578-615 MiB at 256 MiB
// (CPU time 32-39 s, 43 s and 37-47 s: within the shared machine's noise).
const ImportMemoryShare = 0.5

// ImportMemoryFloor is the least memory_limit the verdict import gives
// DuckDB (the workspace's own limit when that is smaller): at
// --memory-limit 128MiB it keeps the whole limit, under which the import of
// 1.5 million verdicts (scale 100) peaked at 349 MiB.
const ImportMemoryFloor = 128 << 20

// ScanMemoryShare is the share of the workspace's memory_limit that DuckDB
// keeps while ub probes scans every episode and ub export writes a query's
// result (ScaleMemoryLimit, at least ImportMemoryFloor): 384 MiB of the
// default 512 MiB. DuckDB's memory past its buffer pool (its allocator's,
// the sort's and the join's outside it) and ub's own heap come on top: on
// ub synth --study fidelity --scale 381 with a second grader, ub probes
// peaked at 790 MiB and the export of the 5.9 million verdicts at
// 791 MiB with DuckDB at the full 512 MiB, past the limit plus 256 MiB.
const ScanMemoryShare = 0.75

// ScaleMemoryLimit sets DuckDB's memory_limit on the connection's database
// to share of its current value, or floor if that is more (but never more
// than the current value), and returns a function that restores it.
func ScaleMemoryLimit(ctx context.Context, c *sql.Conn, share float64, floor int64) (restore func(context.Context) error, err error) {
	var text string
	if err := c.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&text); err != nil {
		return nil, fmt.Errorf("memory limit: %w", err)
	}
	limit, err := parseSize(text) // as DuckDB prints it: "512.0 MiB"
	if err != nil {
		return nil, fmt.Errorf("memory limit %q: %w", text, err)
	}
	set := func(ctx context.Context, bytes int64) error {
		_, err := c.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%dB'", bytes))
		return err
	}
	if err := set(ctx, min(limit, max(int64(float64(limit)*share), floor))); err != nil {
		return nil, fmt.Errorf("memory limit: %w", err)
	}
	return func(ctx context.Context) error { return set(ctx, limit) }, nil
}

var sizeRE = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]i?B|B|bytes)?\s*$`)

// parseSize reads a size as DuckDB prints one ("488.2 MiB", "1.5 GB").
func parseSize(s string) (int64, error) {
	m := sizeRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("not a size")
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]float64{"": 1, "B": 1, "bytes": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50}[m[2]]
	return int64(v * mult), nil
}
