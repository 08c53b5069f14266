package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/queries"
)

// TestPointsImportRefusesLeaks: a published point that lies in a profile
// session, or belongs to a train developer, is refused (scoring it would
// leak), and nothing is imported.
func TestPointsImportRefusesLeaks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	ws, err := queries.Open(context.Background(), db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	row := func(query string) queries.PointRow {
		var p queries.PointRow
		if err := ws.Conn().QueryRowContext(context.Background(), query).Scan(&p.Developer, &p.Split, &p.SessionID, &p.TurnIdx); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		p.PriorTurns = p.TurnIdx
		p.ID = graph.PointID(p.SessionID, p.TurnIdx)
		return p
	}
	profile := row(`SELECT m.developer, e.split, m.session_id, m.turn_idx FROM moments m JOIN session_roles r USING (session_id)
		JOIN eligibility e ON e.developer = m.developer WHERE r.role = 'profile' AND e.eligible ORDER BY 3, 4 LIMIT 1`)
	train := row(`SELECT m.developer, d.split, m.session_id, m.turn_idx FROM moments m JOIN session_roles r USING (session_id)
		JOIN developer_splits d ON d.developer = m.developer WHERE r.role = 'heldout' AND d.split = 'train' ORDER BY 3, 4 LIMIT 1`)
	ws.Close()
	for name, tt := range map[string]struct {
		p    queries.PointRow
		want string
	}{
		"profile session": {profile, "is not a held-out session here"},
		"train developer": {train, "is not an eligible val or test developer"},
	} {
		t.Run(name, func(t *testing.T) {
			b, _ := json.Marshal(tt.p)
			f := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".jsonl")
			os.WriteFile(f, append(b, '\n'), 0o644)
			code, _, errs := runUB(t, "--db", db, "points", "import", f)
			if code != exitBadInput || !strings.Contains(errs, tt.want) || !strings.Contains(errs, "nothing imported") {
				t.Errorf("exit %d, stderr %s; want 3 and %q", code, errs, tt.want)
			}
		})
	}
}
