package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestNoExtensionIsFetched runs ub, as a child process, inside a network
// namespace with no route (unshare -n) under strace, with queries that
// would install or load a DuckDB extension, turn autoinstalling back on,
// or attach a remote database: each is refused (exit 2, naming what was
// refused), no process calls connect(2) at all, and nothing is written
// below HOME (DuckDB keeps its extensions in ~/.duckdb). A local ATTACH
// and read_json of a local file still work. CI runs as root with strace
// (make test installs it: scripts/test-deps.sh); without either the test fails, saying why.
func TestNoExtensionIsFetched(t *testing.T) {
	for _, tool := range []string{"unshare", "strace"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("this test needs %s (util-linux; strace: apt-get install -y strace, as make test does as root): %v", tool, err)
		}
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "ws.duckdb")
	if code, _, stderr := runUB(t, "--db", db, "ingest", "--format", "jsonl", "../../ingest/testdata/jsonl/good.jsonl"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	other := filepath.Join(dir, "other.duckdb")
	if code, _, stderr := runUB(t, "--db", other, "ingest", "--format", "jsonl", "../../ingest/testdata/jsonl/good.jsonl"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	local := filepath.Join(dir, "t.json")
	os.WriteFile(local, []byte(`{"a": 1}`), 0o644)
	// ub runs inside the namespace: the test binary with UB_TEST_MAIN_ARGS.
	ubIn := func(args ...string) (int, string, []string) {
		t.Helper()
		a, _ := json.Marshal(append([]string{"--db", db}, args...))
		trace := filepath.Join(dir, "strace.txt")
		cmd := exec.Command("unshare", "-n", "strace", "-f", "-qq", "-e", "trace=connect", "-o", trace, os.Args[0])
		cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a), "HOME="+home, "XDG_CONFIG_HOME="+home)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("unshare -n strace: %v: %s", err, out)
		}
		if strings.Contains(string(out), "unshare:") || strings.Contains(string(out), "strace:") {
			t.Fatalf("could not run ub in a network namespace under strace: %s", out)
		}
		tr, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var connects []string
		for _, l := range strings.Split(string(tr), "\n") {
			if strings.Contains(l, "connect(") {
				connects = append(connects, l)
			}
		}
		return code, string(out), connects
	}
	for _, c := range []struct{ query, refused string }{
		{"INSTALL httpfs", "INSTALL"},
		{"force install httpfs from 'http://extensions.duckdb.org'", "FORCE INSTALL"},
		{"select 1; /* ; */ install 'httpfs'", "INSTALL"},
		{"UPDATE EXTENSIONS", "UPDATE EXTENSIONS"},
		{"LOAD httpfs", "LOAD"},
		{"load '/tmp/httpfs.duckdb_extension'", "LOAD"},
		{"SET autoinstall_known_extensions = true", "locked"},
		{"SET autoload_known_extensions = true", "locked"},
		{"SET allow_community_extensions = true", "locked"},
		{"RESET lock_configuration", "locked"},
		{"SET extension_directory = '/tmp/ext'", "locked"},
		{"ATTACH 'http://example.com/x.duckdb' AS h", "ATTACH http://example.com/x.duckdb"},
		{"attach if not exists 's3://bucket/x.duckdb' as s", "ATTACH s3://bucket/x.duckdb"},
		{"ATTACH DATABASE 'md:my_db'", "ATTACH md:my_db"},
	} {
		code, out, connects := ubIn("sql", c.query)
		if code != 2 || !strings.Contains(out, "refused") || !strings.Contains(out, c.refused) {
			t.Errorf("ub sql %q: exit %d, want 2 naming %q: %s", c.query, code, c.refused, out)
		}
		if len(connects) > 0 {
			t.Errorf("ub sql %q tried to connect: %s", c.query, strings.Join(connects, "; "))
		}
	}
	code, out, connects := ubIn("export", "--query", "INSTALL httpfs", "--out", filepath.Join(dir, "x.parquet"))
	if code != 2 || !strings.Contains(out, "refused") || len(connects) > 0 {
		t.Errorf("ub export --query INSTALL: exit %d, connects %v: %s", code, connects, out)
	}
	// A remote file in a query finds no extension to read it with.
	code, out, connects = ubIn("sql", "select * from read_json('http://example.com/x.json')")
	if code == 0 || len(connects) > 0 {
		t.Errorf("read_json over http: exit %d, connects %v: %s", code, connects, out)
	}
	// Local files stay readable.
	code, out, connects = ubIn("sql", "ATTACH '"+other+"' AS o (READ_ONLY); select count(*) > 0 as n from o.sessions")
	if code != 0 || !strings.Contains(out, "true") || len(connects) > 0 {
		t.Errorf("local ATTACH: exit %d, connects %v: %s", code, connects, out)
	}
	code, out, _ = ubIn("sql", "select a from read_json('"+local+"')")
	if code != 0 || !strings.Contains(out, "1") {
		t.Errorf("local read_json: exit %d: %s", code, out)
	}
	var written []string
	filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
		if p != home {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("written below HOME: %v", written)
	}
}

// TestCheckUserSQL: the statements refused, and those let through (quoted
// text and comments are not statements).
func TestCheckUserSQL(t *testing.T) {
	for _, q := range []string{"select 'INSTALL httpfs'", "select 1 -- ; install httpfs", "/* load x */ select 2", `select "load" from (select 1 as "load")`,
		"ATTACH 'ws.duckdb' AS w", "attach 'file:/tmp/x.duckdb'"} {
		if err := queriesCheck(q); err != nil {
			t.Errorf("%q refused: %v", q, err)
		}
	}
}

func queriesCheck(q string) error { return queries.CheckUserSQL(q) }
