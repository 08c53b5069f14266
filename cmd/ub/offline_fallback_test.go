package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOfflineEmptyProfilePoolFallsBack: an eligible developer whose profile
// sessions hold no agent turn answered by a developer message (an empty
// profile pool) still gets a generation from mix and retrieve in the
// profile condition, drawn from the training developers' pool, and the
// generation records the fallback in its key_parts. (Before, each was
// recorded with an "empty pool" error.)
func TestOfflineEmptyProfilePoolFallsBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	sql := func(q string, write bool) string {
		t.Helper()
		args := []string{"--db", db, "sql", "--format", "csv"}
		if write {
			args = append(args, "--write")
		}
		code, out, errs := runUB(t, append(args, q)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", q, code, errs)
		}
		return strings.TrimSpace(out)
	}
	dev := strings.Split(sql(`select min(developer) as d from points`, false), "\n")[1]
	// Every developer message of its profile sessions becomes a command:
	// no pair is left in its profile pool.
	sql(`update turns set is_command = true where role = 'developer' and session_id in
		(select session_id from session_roles where role = 'profile' and developer = '`+dev+`')`, true)
	code, _, errs := runUB(t, "--db", db, "generate", "--sim", "mix,retrieve", "--conditions", "profile", "--seed", "7")
	if code != 0 {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
	got := sql(`select count(*) filter (where g.error is null and g.text is not null),
			count(*) filter (where (g.key_parts->>'pool_fallback') = 'train'),
			(select 2 * count(*) from points where developer = '`+dev+`')
		from generations g join points p on p.id = g.point_id
		where p.developer = '`+dev+`' and g.condition = 'profile' and g.window_n = 14 and g.history_k = 0
			and (g.key_parts->>'backend') in ('mix', 'retrieve')`, false)
	rows := strings.Split(got, "\n")
	f := strings.Split(rows[len(rows)-1], ",")
	if len(f) != 3 || f[0] != f[2] || f[1] != f[2] || f[2] == "0" {
		t.Errorf("developer %s: ok, fallback, want = %v: every generation must have text and record the fallback", dev, f)
	}
	// (The demo's sweeps at other N and K were made before the pool was
	// emptied, and generate --sim re-makes N = 14, K = 0 only.)
	others := sql(`select count(*) from generations g join points p on p.id = g.point_id
		where p.developer <> '`+dev+`' and (g.key_parts->>'pool_fallback') is not null`, false)
	if !strings.HasSuffix(others, "\n0") {
		t.Errorf("other developers' generations record a fallback: %s", others)
	}
}
