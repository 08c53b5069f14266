package queries

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMigrationDropsTheProbeList: a workspace made before 0011 (its
// ep_probe_findings refusing any probe outside P0..P6) keeps every finding
// through the migration, byte for byte, and then accepts a new probe's
// findings; the views over the table still read it.
func TestMigrationDropsTheProbeList(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	// A workspace before 0011: every migration applied, then
	// ep_probe_findings made again as 0005 made it, the tables of later
	// migrations dropped and 0011 on unrecorded.
	ws, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db := ws.Conn()
	var old string
	for _, m := range ms {
		if m.Version == 5 {
			lo := strings.Index(m.SQL, "CREATE TABLE ep_probe_findings (")
			hi := strings.Index(m.SQL[lo:], ");")
			old = m.SQL[lo : lo+hi+2]
		}
	}
	if !strings.Contains(old, "CHECK (probe IN") {
		t.Fatalf("0005 has no probe list: %q", old)
	}
	// The tables, views, columns and indexes of migrations after 0011,
	// found in their text, dropped last made first (if they exist: a
	// table a migration makes again is made under another name, renamed).
	var later []string
	made := regexp.MustCompile(`(?m)^CREATE (TABLE|VIEW) (?:IF NOT EXISTS )?(\w+)`)
	added := regexp.MustCompile(`(?m)^ALTER TABLE (\w+) ADD COLUMN (?:IF NOT EXISTS )?(\w+)`)
	indexed := regexp.MustCompile(`(?m)^CREATE INDEX (?:IF NOT EXISTS )?(\w+)`)
	// A table made to be renamed over one of an earlier migration (0020
	// makes ep_probe_applicable again) is no new table: left as it is.
	renamed := regexp.MustCompile(`(?m)^ALTER TABLE (\w+) RENAME TO`)
	for _, m := range ms {
		if m.Version > 11 {
			gone := map[string]bool{}
			for _, x := range renamed.FindAllStringSubmatch(m.SQL, -1) {
				gone[x[1]] = true
			}
			for _, x := range made.FindAllStringSubmatch(m.SQL, -1) {
				if gone[x[2]] {
					continue
				}
				later = append([]string{"DROP " + x[1] + " IF EXISTS " + x[2]}, later...)
			}
			for _, x := range added.FindAllStringSubmatch(m.SQL, -1) {
				later = append([]string{"ALTER TABLE " + x[1] + " DROP COLUMN " + x[2]}, later...)
			}
			for _, x := range indexed.FindAllStringSubmatch(m.SQL, -1) {
				later = append([]string{"DROP INDEX " + x[1]}, later...)
			}
		}
	}
	for _, q := range append(append([]string{`DROP TABLE ep_probe_findings`, old}, later...), `DELETE FROM schema_migrations WHERE version >= 11`) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const ins = `INSERT INTO ep_probe_findings VALUES (?, ?, ?, ?, ?)`
	rows := [][5]any{
		{"s1", "P0", nil, "user id raj_sanchez_7340", `{"own":"mia_li_3668"}`},
		{"s1", "P1a", 0, "my user id is mia_li_3668", nil},
		{"s2", "P4", 7, "yes, go ahead ###STOP###", `{"asked":"shall i proceed?"}`},
		{"s2", "P6", 3, "tool calls a, b", `{"violation":"several calls"}`},
	}
	for _, r := range rows {
		if _, err := db.ExecContext(ctx, ins, r[:]...); err != nil {
			t.Fatal(err)
		}
	}
	// The old schema refuses a probe it does not list: the defect.
	if _, err := db.ExecContext(ctx, ins, "s3", "P7", 1, "###STOP###", nil); err == nil {
		t.Fatal("the old schema accepted P7: the test does not build an old workspace")
	}
	ws.Close()

	ws, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dump := func() string {
		rs, err := ws.Conn().QueryContext(ctx, `SELECT simulation_id, probe, coalesce(CAST(turn_idx AS VARCHAR), '-'), evidence, coalesce(CAST(detail AS VARCHAR), '-')
			FROM ep_probe_findings ORDER BY simulation_id, probe`)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var b strings.Builder
		for rs.Next() {
			var a, p, ti, ev, d string
			if err := rs.Scan(&a, &p, &ti, &ev, &d); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s|%s|%s|%s|%s\n", a, p, ti, ev, d)
		}
		return b.String()
	}
	want := `s1|P0|-|user id raj_sanchez_7340|{"own":"mia_li_3668"}
s1|P1a|0|my user id is mia_li_3668|-
s2|P4|7|yes, go ahead ###STOP###|{"asked":"shall i proceed?"}
s2|P6|3|tool calls a, b|{"violation":"several calls"}
`
	if got := dump(); got != want {
		t.Fatalf("after the migration:\n%s\nwant:\n%s", got, want)
	}
	if _, err := ws.Conn().ExecContext(ctx, ins, "s3", "P7", 1, "###STOP###", nil); err != nil {
		t.Fatalf("a new probe's finding refused after the migration: %v", err)
	}
	var n int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM probe_findings`).Scan(&n); err != nil || n != 5 {
		t.Errorf("probe_findings view: %d rows, err %v; want 5", n, err)
	}
	var v int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v); err != nil || v < 11 {
		t.Errorf("schema version %d, err %v", v, err)
	}
}
