package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ub-bench/ub"
)

// join prints a row's values separated by spaces.
func join(row []any) string {
	s := make([]string, len(row))
	for i, v := range row {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, " ")
}

// TestReplaceProbeResultsWritesTheDifference: after StageProbeResults' replace the
// stored findings and applicability rows are exactly the staged ones (as
// multisets: a finding stored twice and staged once is stored once), and
// the rows of episodes whose results did not change keep their rowids:
// they were neither deleted nor written again. Unchanged findings include
// a NULL turn and a NULL detail, which must compare equal to themselves.
func TestReplaceProbeResultsWritesTheDifference(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	two := 2
	detail := json.RawMessage(`{"field":"name"}`)
	f := func(sim, probe string, turn *int, evidence string, d json.RawMessage) ub.ProbeFinding {
		return ub.ProbeFinding{SimulationID: sim, Probe: probe, TurnIdx: turn, Evidence: evidence, Detail: d}
	}
	stored := []ub.ProbeFinding{
		f("e1", "P1", &two, "asked twice", nil),    // unchanged, NULL detail
		f("e2", "P3", nil, "missed write", detail), // unchanged, NULL turn
		f("e3", "P2", &two, "old evidence", nil),   // changed evidence
		f("e6", "P1", &two, "dup", nil),            // stored twice, staged once
		f("e6", "P1", &two, "dup", nil),            //
		f("e7", "P4", nil, "gone", nil),            // not staged: deleted
	}
	staged := []ub.ProbeFinding{
		f("e2", "P3", nil, "missed write", detail),
		f("e1", "P1", &two, "asked twice", nil),
		f("e3", "P2", &two, "new evidence", nil),
		f("e5", "P5", nil, "new episode", detail),
		f("e6", "P1", &two, "dup", nil),
	}
	storedApps := [][2]string{{"e1", "P1"}, {"e2", "P3"}, {"e3", "P2"}, {"e4", "P1"}}
	stagedApps := [][2]string{{"e1", "P1"}, {"e2", "P3"}, {"e3", "P2"}, {"e5", "P5"}}
	write := func(fs []ub.ProbeFinding, apps [][2]string) {
		t.Helper()
		err := ws.InTx(ctx, func(c *sql.Conn) error {
			w := NewRowWriter(ctx, ws)
			replace, err := StageProbeResults(ctx, c, w)
			if err != nil {
				return err
			}
			for _, x := range fs {
				w.EpProbeFinding(x)
			}
			for _, a := range apps {
				w.EpProbeApplicable(a[0], a[1])
			}
			if err := w.Close(); err != nil {
				return err
			}
			return replace(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	rowids := func(q string) map[string]int64 {
		t.Helper()
		out := map[string]int64{}
		err := Adhoc(ctx, ws.Conn(), q, func(_ []Column, row []any) error {
			if row != nil {
				out[join(row[1:])] = row[0].(int64)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const findings = `SELECT rowid, simulation_id, probe, coalesce(turn_idx::VARCHAR, '-'), evidence, coalesce(detail::VARCHAR, '-') FROM ep_probe_findings`
	const apps = `SELECT rowid, simulation_id, probe FROM ep_probe_applicable`
	// Nothing stored yet: the first write goes straight to the tables,
	// with no staging table, and its replace does nothing.
	write(stored, storedApps)
	beforeF, beforeA := rowids(findings), rowids(apps)
	if len(beforeF) != 5 || len(beforeA) != 4 { // e6's two findings are one key
		t.Fatalf("first write stored %v and %v", beforeF, beforeA)
	}
	write(staged, stagedApps)
	afterF, afterA := rowids(findings), rowids(apps)

	var got []string
	err = Adhoc(ctx, ws.Conn(), `SELECT simulation_id, probe, coalesce(turn_idx::VARCHAR, '-'), evidence, coalesce(detail::VARCHAR, '-')
		FROM ep_probe_findings ORDER BY ALL`, func(_ []Column, row []any) error {
		if row != nil {
			got = append(got, join(row))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"e1 P1 2 asked twice -", `e2 P3 - missed write {"field":"name"}`, "e3 P2 2 new evidence -", "e5 P5 - new episode " + string(detail), "e6 P1 2 dup -"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings after:\n got %q\nwant %q", got, want)
	}
	if len(afterA) != 4 {
		t.Errorf("applicable after: %v, want 4 rows", afterA)
	}
	for _, k := range []string{"e1 P1", "e2 P3", "e3 P2", "e5 P5"} {
		if _, ok := afterA[k]; !ok {
			t.Errorf("applicable after: %v, want %s", afterA, k)
		}
	}
	if _, ok := afterA["e4 P1"]; ok {
		t.Errorf("applicable after: %v, e4 P1 was not staged", afterA)
	}
	// Unchanged rows are not written again: same rowid.
	for _, k := range []string{"e1 P1", "e2 P3", "e3 P2"} {
		if afterA[k] != beforeA[k] {
			t.Errorf("applicability %s rewritten: rowid %d -> %d", k, beforeA[k], afterA[k])
		}
	}
	for _, k := range []string{"e1 P1 2 asked twice -", `e2 P3 - missed write {"field":"name"}`} {
		if b, ok := beforeF[k]; !ok || afterF[k] != b {
			t.Errorf("finding %s rewritten: rowid %d -> %d", k, b, afterF[k])
		}
	}
	var temps int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name LIKE 'ub_probe_%'`).Scan(&temps); err != nil || temps != 0 {
		t.Errorf("%d staging tables left (%v)", temps, err)
	}
}
