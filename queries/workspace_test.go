package queries

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestOpenTurnsOffExtensionAutoloading is defect 7 of issue 9: DuckDB
// downloaded an extension on its own for a file it did not know. Both
// settings must be off in every workspace ub opens.
func TestOpenTurnsOffExtensionAutoloading(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ub.duckdb")
	for _, o := range []struct {
		name string
		path string
		opts Options
	}{{"memory", "", Options{}}, {"file", path, Options{}}, {"read-only", path, Options{ReadOnly: true}}} {
		t.Run(o.name, func(t *testing.T) {
			ws, err := Open(ctx, o.path, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			for _, s := range []string{"autoinstall_known_extensions", "autoload_known_extensions"} {
				var v string
				if err := ws.Conn().QueryRowContext(ctx, `SELECT current_setting('`+s+`')::VARCHAR`).Scan(&v); err != nil {
					t.Fatal(err)
				}
				if v != "false" {
					t.Errorf("%s = %s, want false", s, v)
				}
			}
		})
	}
}

// TestOpenRefusesNonDuckDBFiles: an SQLite file, a text file or a directory
// as the workspace is refused with ErrNotWorkspace, and left as it was.
func TestOpenRefusesNonDuckDBFiles(t *testing.T) {
	dir := t.TempDir()
	// The first 16 bytes of every SQLite 3 database (sqlite.org/fileformat.html, 1.3).
	sqlite := append([]byte("SQLite format 3\x00"), make([]byte, 84)...)
	cases := []struct {
		name, want string
		body       []byte
	}{
		{"sqlite.db", "an SQLite database", sqlite},
		{"notes.txt", "not a DuckDB database", []byte("hello, this is not a database\n")},
		{"tiny", "not a DuckDB database", []byte("x")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.body, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, ro := range []bool{false, true} {
				ws, err := Open(context.Background(), p, Options{ReadOnly: ro})
				if err == nil {
					ws.Close()
					t.Fatalf("read-only %v: opened %s", ro, c.name)
				}
				if !errors.Is(err, ErrNotWorkspace) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
					t.Errorf("read-only %v: error %q, want ErrNotWorkspace naming %s and saying %q", ro, err, p, c.want)
				}
			}
			got, _ := os.ReadFile(p)
			if string(got) != string(c.body) {
				t.Errorf("%s was changed", c.name)
			}
		})
	}
	if _, err := Open(context.Background(), dir, Options{}); !errors.Is(err, ErrNotWorkspace) {
		t.Errorf("a directory: error %v, want ErrNotWorkspace", err)
	}
}

// TestOpenRefusesNewerSchema is defect 6 of issue 9: a workspace a newer ub
// wrote (a migration this ub does not know) was opened as if it were its
// own. It is refused, read-write and read-only, naming both versions.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ub.duckdb")
	ws, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	mine := ms[len(ms)-1].Version
	future := mine + 100
	if _, err := ws.Conn().ExecContext(ctx, `INSERT INTO schema_migrations VALUES (?, 'from_the_future.sql')`, future); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	for _, ro := range []bool{false, true} {
		ws, err := Open(ctx, path, Options{ReadOnly: ro})
		if err == nil {
			ws.Close()
			t.Fatalf("read-only %v: a newer workspace was opened", ro)
		}
		msg := err.Error()
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(msg, "version is "+strconv.Itoa(future)) || !strings.Contains(msg, "up to "+strconv.Itoa(mine)) {
			t.Errorf("read-only %v: error %q, want ErrNewerSchema naming %d and %d", ro, msg, future, mine)
		}
	}
}

// TestMigrationIsAtomic: a new workspace whose migration stops part way (a
// failing migration standing for SIGINT) is not created at all, and the
// next open creates it whole; an existing workspace whose migration stops
// keeps every migration before the failing one, a read-only open says
// which command migrates it, and the next read-write open resumes.
func TestMigrationIsAtomic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ub.duckdb")
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	last := ms[len(ms)-1].Version
	stopAt := func(v int) {
		migrationHook = func(m Migration) error {
			if m.Version == v {
				return context.Canceled
			}
			return nil
		}
	}
	t.Cleanup(func() { migrationHook = nil })

	stopAt(5)
	if ws, err := Open(ctx, path, Options{}); err == nil {
		ws.Close()
		t.Fatal("the interrupted migration succeeded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("an interrupted creation left %v", names)
	}
	migrationHook = nil
	ws, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatalf("the created workspace: %v", err)
	}
	ws.Close()
	if v := schemaVersion(t, path); v != last {
		t.Fatalf("created workspace at version %d, want %d", v, last)
	}

	// An existing workspace at version 4, as an older ub left it.
	old := filepath.Join(dir, "old.duckdb")
	db, err := sql.Open("duckdb", old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:4] {
		if _, err := db.Exec(m.SQL); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`INSERT INTO schema_migrations VALUES (?, ?)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if _, err := Open(ctx, old, Options{ReadOnly: true}); err == nil || !strings.Contains(err.Error(), "schema version 4, this ub needs "+strconv.Itoa(last)) ||
		!strings.Contains(err.Error(), "ub --db "+old+" sql --write") {
		t.Errorf("read-only open of version 4: %v, want the command that migrates it", err)
	}
	stopAt(7)
	if ws, err := Open(ctx, old, Options{}); err == nil {
		ws.Close()
		t.Fatal("the interrupted migration succeeded")
	}
	if v := schemaVersion(t, old); v != 6 {
		t.Errorf("interrupted at 7: version %d, want 6 (each migration whole)", v)
	}
	migrationHook = nil
	ws, err = Open(ctx, old, Options{})
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	ws.Close()
	if v := schemaVersion(t, old); v != last {
		t.Errorf("resumed: version %d, want %d", v, last)
	}
}

func schemaVersion(t *testing.T, path string) int {
	t.Helper()
	ws, err := Open(context.Background(), path, Options{ReadOnly: true})
	if ws == nil {
		// An out-of-date workspace refuses a read-only open: read the
		// version directly.
		db, derr := sql.Open("duckdb", path+"?access_mode=read_only")
		if derr != nil {
			t.Fatal(err, derr)
		}
		defer db.Close()
		var v int
		if err := db.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	defer ws.Close()
	var v int
	if err := ws.Conn().QueryRowContext(context.Background(), `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestOpenSetsMemory: every workspace opens with DuckDB's memory bounded
// (DefaultMemoryLimit, or the caller's) and insertion order not preserved,
// read-only opens and new workspaces included; a size DuckDB would not
// take is refused before anything is opened.
func TestOpenSetsMemory(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ub.duckdb")
	for _, o := range []struct {
		name, path string
		opts       Options
		want       string // DuckDB's own rendering of the limit
	}{
		{"default", path, Options{}, "512.0 MiB"},
		{"given", path, Options{MemoryLimit: "2GiB"}, "2.0 GiB"},
		{"read-only", path, Options{ReadOnly: true, MemoryLimit: "768MiB"}, "768.0 MiB"},
		{"memory", "", Options{MemoryLimit: "1GB"}, "953.6 MiB"}, // 10^9 bytes
	} {
		t.Run(o.name, func(t *testing.T) {
			ws, err := Open(ctx, o.path, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			var limit, order string
			if err := ws.Conn().QueryRowContext(ctx, `SELECT current_setting('memory_limit'), current_setting('preserve_insertion_order')::VARCHAR`).Scan(&limit, &order); err != nil {
				t.Fatal(err)
			}
			if limit != o.want || order != "false" {
				t.Errorf("memory_limit %q, preserve_insertion_order %s; want %q, false", limit, order, o.want)
			}
		})
	}
	other := filepath.Join(t.TempDir(), "none.duckdb")
	for _, bad := range []string{"lots", "-1GB", "512MiB; SET x=1", "12 parsecs"} {
		if _, err := Open(ctx, other, Options{MemoryLimit: bad}); err == nil || !strings.Contains(err.Error(), "memory limit") {
			t.Errorf("MemoryLimit %q: err %v, want a refusal", bad, err)
		}
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused limit left %s behind (%v)", other, err)
	}
}

// TestCreateRemovesStaleTemporaries: a ub killed (kill -9) while it created
// a workspace leaves ".NAME.new-DIGITS" beside it. The next creation of the
// same workspace removes such a file once it is stale (empty or a DuckDB
// file, untouched for ten minutes), with its log; a fresh one (another
// creation may be under way), one with other content, another workspace's
// and a name ub does not make are left alone.
func TestCreateRemovesStaleTemporaries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A real DuckDB file to stand for a killed creation's.
	donor := filepath.Join(dir, "donor.duckdb")
	ws, err := Open(ctx, donor, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	duck, err := os.ReadFile(donor)
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	write := func(name string, body []byte, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{
		write(".ub.duckdb.new-123", duck, old),
		write(".ub.duckdb.new-123.wal", []byte("log"), old),
		write(".ub.duckdb.new-456", nil, old),
	}
	kept := []string{
		write(".ub.duckdb.new-789", duck, time.Now()),        // fresh: maybe another creation's
		write(".ub.duckdb.new-321", []byte("my notes"), old), // not a DuckDB file
		write(".other.duckdb.new-123", duck, old),            // another workspace's
		write(".ub.duckdb.new-12a", duck, old),               // not a name ub makes
		write("ub.duckdb.new-123", duck, old),                // not hidden
	}
	ws, err = Open(ctx, filepath.Join(dir, "ub.duckdb"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	for _, p := range gone {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: still there (%v)", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: removed (%v)", filepath.Base(p), err)
		}
	}
}
