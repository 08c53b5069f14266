package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTau2DirErrorsClearedOnReingest: the errors of a dir-format run's
// simulation files (recorded under each file's path) are the latest
// ingest's, as for any other file: fixing the files and ingesting the run
// again leaves none of the earlier ones in ingest_errors, including those
// of a file removed since; an error still there is recorded again.
func TestTau2DirErrorsClearedOnReingest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	sims := filepath.Join(dir, "simulations")
	if err := os.MkdirAll(sims, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	meta := func(ids ...string) string {
		var idx []string
		for _, id := range ids {
			idx = append(idx, `{"id": "`+id+`", "task_id": "5", "trial": 0}`)
		}
		return `{"timestamp": "2026-01-03T00:00:00", "info": {"git_commit": "fc0055d", "user_info": {"implementation": "user_simulator", "llm": "gpt-4.1"},
 "agent_info": {"implementation": "llm_agent", "llm": "gpt-4o"}, "environment_info": {"domain_name": "retail"}},
 "tasks": [{"id": "5"}], "simulation_index": [` + strings.Join(idx, ", ") + `]}`
	}
	good := func(id string) string {
		return `{"id": "` + id + `", "task_id": "5", "trial": 0, "reward_info": {"reward": 1.0},
 "messages": [{"role": "assistant", "content": "Hello."}, {"role": "user", "content": "Done. ###STOP###"}]}`
	}
	write("results.json", meta("d1", "d2", "d3"))
	write("simulations/d1.json", good("d1"))
	write("simulations/d2.json", `{"id": "d2", "task_id": "5", "messages": [}`)
	write("simulations/d3.json", `{"id": "d3", "task_id": "5", "messages": "no list"}`)
	ws := memWorkspace(t)
	errorPaths := func() []string {
		t.Helper()
		return tableDump(t, ws, "(SELECT path FROM ingest_errors)")
	}
	st, _ := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber})
	if st.ErrorCount != 2 {
		t.Fatalf("first ingest: %d errors %v, want 2 (d2, d3)", st.ErrorCount, st.Errors)
	}
	if got := strings.Join(errorPaths(), " "); got != "path="+filepath.Join(sims, "d2.json")+"| path="+filepath.Join(sims, "d3.json")+"|" {
		t.Fatalf("recorded errors: %s", got)
	}
	// d2 fixed; d3 still broken: only d3's error remains.
	write("simulations/d2.json", good("d2"))
	if st, _ := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber}); st.ErrorCount != 1 {
		t.Fatalf("second ingest: %d errors %v, want 1", st.ErrorCount, st.Errors)
	}
	if got := strings.Join(errorPaths(), " "); got != "path="+filepath.Join(sims, "d3.json")+"|" {
		t.Errorf("after fixing d2: %s", got)
	}
	// d3 removed from the folder and the index: no error is left.
	if err := os.Remove(filepath.Join(sims, "d3.json")); err != nil {
		t.Fatal(err)
	}
	write("results.json", meta("d1", "d2"))
	if st, err := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber}); err != nil || st.ErrorCount != 0 {
		t.Fatalf("third ingest: %v %v", err, st.Errors)
	}
	if got := errorPaths(); len(got) != 0 {
		t.Errorf("after removing d3: %v", got)
	}
	if n := count(t, ws, `SELECT count(*) FROM ep_episodes`); n != 2 {
		t.Errorf("%d episodes, want 2", n)
	}
}
