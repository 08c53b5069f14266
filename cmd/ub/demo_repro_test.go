package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestDemoReproducible holds the README to what it says of the demo: two
// runs write the same bytes into every file but the workspace, and the same
// rows into every table of the workspace (the DuckDB file's bytes differ).
func TestDemoReproducible(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{"writes the same bytes into every file but the workspace, and the same rows into every table of `ub-demo/ub.duckdb`",
		"the workspace file's own bytes differ between runs"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README does not say %q", want)
		}
	}
	if strings.Contains(readme, "`ub-demo/ub.duckdb`) and is byte-for-byte the same") {
		t.Error("README still says the demo's workspace file is byte-for-byte the same")
	}
	// The first run is the demo fixture the other tests copy; the second
	// runs into the same directory (no other test runs meanwhile: this one
	// is not parallel, and the copies are made by other tests' bodies).
	dir := demoFixtureDir(t)
	files1, tables1 := demoFiles(t, dir), demoTables(t, filepath.Join(dir, "ub.duckdb"))
	// A file the user put in the demo's folders stays: the second run
	// deletes the demo's own files only. (Taken out again after, for the
	// tests that copy the fixture.)
	notes := []string{filepath.Join(dir, "corpus", "notes.txt"), filepath.Join(dir, "report", "notes.txt")}
	for _, n := range notes {
		if err := os.WriteFile(n, []byte("my notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := ubRun("demo", "--dir", dir)
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, errs)
	}
	for _, want := range []string{"workspace  176 sessions", "report: " + filepath.Join(dir, "report", "report.md") + " (22 figures, 1 skipped)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the second run's summary lacks %q:\n%s", want, out)
		}
	}
	for _, n := range notes {
		if b, err := os.ReadFile(n); err != nil || string(b) != "my notes\n" {
			t.Errorf("the user's %s after a second run: %q, %v", n, b, err)
		}
		os.Remove(n)
	}
	files2, tables2 := demoFiles(t, dir), demoTables(t, filepath.Join(dir, "ub.duckdb"))
	if len(files1) < 20 || len(tables1) < 20 {
		t.Fatalf("%d files, %d tables: the demo wrote too little", len(files1), len(tables1))
	}
	for _, c := range []struct {
		what string
		a, b map[string]string
	}{{"file", files1, files2}, {"table", tables1, tables2}} {
		for k, v := range c.a {
			if c.b[k] != v {
				t.Errorf("%s %s differs between two demo runs", c.what, k)
			}
		}
		if len(c.a) != len(c.b) {
			t.Errorf("%d %ss, then %d", len(c.a), c.what, len(c.b))
		}
	}
}

// demoFiles reads every file below dir but the workspace.
func demoFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "ub.duckdb") {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// demoTables reads every table of the workspace at db in full, sorted by
// all its columns.
func demoTables(t *testing.T, db string) map[string]string {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rows, err := ws.Conn().QueryContext(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	tables := map[string]string{}
	for _, n := range names {
		r, err := ws.Conn().QueryContext(ctx, `SELECT * FROM "`+n+`" ORDER BY ALL`)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		cols, _ := r.Columns()
		var b strings.Builder
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for r.Next() {
			if err := r.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			fmt.Fprintf(&b, "%v\n", vals)
		}
		if err := r.Err(); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		r.Close()
		tables[n] = b.String()
	}
	return tables
}
