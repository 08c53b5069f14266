package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestVerdictsImportChecks: the checks the import makes over all the
// staged lines at once name each refused line, repeats included (a repeat
// of a refused line is still a repeat, as ParseVerdicts says), and a
// second import replaces the verdicts it gives again.
func TestVerdictsImportChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	fidelityWorkspace(t, db)
	var rub strings.Builder
	for task := 1; task <= 2; task++ {
		for _, c := range []string{"c1", "c2"} {
			fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-%s", "family": "goal_deviation", "mode": "accepts_forbidden_outcome", "quote": "You do not accept a fee.", "quote_source": "task_instructions", "text": "t"}`+"\n", task, task, c)
		}
	}
	rubrics := filepath.Join(dir, "r.jsonl")
	os.WriteFile(rubrics, []byte(rub.String()), 0o644)
	if code, out, errs := runUB(t, "--db", db, "rubrics", "import", rubrics); code != 0 {
		t.Fatalf("rubrics import: %d\n%s\n%s", code, out, errs)
	}
	v := filepath.Join(dir, "v.jsonl")
	os.WriteFile(v, []byte(`{"simulation_id": "c1", "criterion_id": "a-1-c1", "verdict": "pass", "reason": "r"}
{"simulation_id": "c1", "criterion_id": "a-1-c1", "verdict": "na"}
{"simulation_id": "c1", "criterion_id": "zz", "verdict": "pass"}
{"simulation_id": "nope", "criterion_id": "a-1-c2", "verdict": "pass"}
{"simulation_id": "c1", "criterion_id": "a-1-c2", "verdict": "fail", "turn_idx": 99999999999}

{"simulation_id": "d1", "criterion_id": "a-1-c2", "verdict": "fail", "turn_idx": 3}
{"simulation_id": "c1", "criterion_id": "zz", "verdict": "na"}
{"simulation_id": "c2", "criterion_id": "a-1-c1", "verdict": "pass"}
`), 0o644)
	code, out, errs := runUB(t, "--db", db, "verdicts", "import", "--grader", "g", v)
	want := []string{
		"v.jsonl:2: verdict of a-1-c1 on c1 by g already given on line 1",
		"v.jsonl:3: criterion zz is not in the workspace (run ub rubrics import)",
		"v.jsonl:4: simulation nope is not in the workspace (ingest its result file)",
		// Past INTEGER: compared as read, not wrapped into a turn.
		"v.jsonl:5: turn_idx 99999999999 is past the end of simulation c1 (its last turn is 3)",
		"v.jsonl:8: verdict of zz on c1 by g already given on line 3",
		"v.jsonl:9: criterion a-1-c1 is of task airline/1, simulation c2 of task airline/2",
	}
	if got := strings.ReplaceAll(strings.TrimSpace(errs), dir+string(filepath.Separator), ""); !strings.HasPrefix(got, strings.Join(want, "\n")+"\n") {
		t.Errorf("refusals:\n%s\nwant, in order:\n%s", got, strings.Join(want, "\n"))
	}
	if code != exitBadInput || !strings.Contains(out, "2 verdicts imported (grader g), 6 refused") {
		t.Fatalf("verdicts import: %d\n%s\n%s", code, out, errs)
	}
	q := func(sql string) string {
		t.Helper()
		code, out, errs := runUB(t, "--db", db, "sql", "--format", "csv", sql)
		if code != 0 {
			t.Fatalf("%s: %s", sql, errs)
		}
		return out
	}
	if got := q("SELECT simulation_id, criterion_id, verdict, turn_idx, reason, source_line FROM ep_verdicts ORDER BY 1, 2"); got != "simulation_id,criterion_id,verdict,turn_idx,reason,source_line\nc1,a-1-c1,pass,,r,1\nd1,a-1-c2,fail,3,,7\n" {
		t.Errorf("stored:\n%s", got)
	}
	if got := q("SELECT line, format FROM ingest_errors ORDER BY line"); got != "line,format\n2,verdicts\n3,verdicts\n4,verdicts\n5,verdicts\n8,verdicts\n9,verdicts\n" {
		t.Errorf("ingest_errors:\n%s", got)
	}
	// Again, d1 now passing: replaced, not added; the file's errors are
	// those of its latest import.
	os.WriteFile(v, []byte(`{"simulation_id": "d1", "criterion_id": "a-1-c2", "verdict": "pass"}`+"\n"), 0o644)
	if code, out, errs := runUB(t, "--db", db, "verdicts", "import", "--grader", "g", v); code != 0 || !strings.Contains(out, "1 verdicts imported (grader g), 0 refused") {
		t.Fatalf("verdicts import again: %d\n%s\n%s", code, out, errs)
	}
	if got := q("SELECT simulation_id, verdict, turn_idx, source_line FROM ep_verdicts ORDER BY 1"); got != "simulation_id,verdict,turn_idx,source_line\nc1,pass,,1\nd1,pass,,1\n" {
		t.Errorf("stored after the second import:\n%s", got)
	}
	if got := q("SELECT count(*) AS n FROM ingest_errors"); got != "n\n0\n" {
		t.Errorf("ingest_errors after the second import:\n%s", got)
	}
}

// TestVerdictsImportOverlapping: importing the same file twice, then a
// file that gives some of its keys again with other verdicts and some
// new ones, then the first file once more, leaves one verdict per
// (simulation, criterion, grader), each the latest import's. ep_verdicts
// has no primary key (schema 0019): the import deletes the keys it
// stores, in the transaction that stores them.
func TestVerdictsImportOverlapping(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	fidelityWorkspace(t, db)
	var rub strings.Builder
	for task := 1; task <= 2; task++ {
		for _, c := range []string{"c1", "c2"} {
			fmt.Fprintf(&rub, `{"task_id": "%d", "domain": "airline", "criterion_id": "a-%d-%s", "family": "goal_deviation", "mode": "accepts_forbidden_outcome", "quote": "You do not accept a fee.", "quote_source": "task_instructions", "text": "t"}`+"\n", task, task, c)
		}
	}
	rubrics := filepath.Join(dir, "r.jsonl")
	os.WriteFile(rubrics, []byte(rub.String()), 0o644)
	if code, out, errs := runUB(t, "--db", db, "rubrics", "import", rubrics); code != 0 {
		t.Fatalf("rubrics import: %d\n%s\n%s", code, out, errs)
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(`{"simulation_id": "c1", "criterion_id": "a-1-c1", "verdict": "pass", "grader": "g"}
{"simulation_id": "c1", "criterion_id": "a-1-c2", "verdict": "pass", "grader": "g"}
{"simulation_id": "d1", "criterion_id": "a-1-c1", "verdict": "fail", "turn_idx": 1, "grader": "g"}
{"simulation_id": "d1", "criterion_id": "a-1-c1", "verdict": "na", "grader": "h"}
{"simulation_id": "c2", "criterion_id": "a-2-c1", "verdict": "na", "reason": "first", "grader": "g"}
`), 0o644)
	os.WriteFile(b, []byte(`{"simulation_id": "c1", "criterion_id": "a-1-c2", "verdict": "fail", "turn_idx": 3, "grader": "g"}
{"simulation_id": "d2", "criterion_id": "a-2-c2", "verdict": "pass", "grader": "g"}
{"simulation_id": "d1", "criterion_id": "a-1-c1", "verdict": "pass", "grader": "g"}
`), 0o644)
	imp := func(file string, n int) {
		t.Helper()
		code, out, errs := runUB(t, "--db", db, "verdicts", "import", file)
		if want := fmt.Sprintf("%d verdicts imported", n); code != 0 || !strings.Contains(out, want) {
			t.Fatalf("verdicts import %s: %d\n%s\n%s", file, code, out, errs)
		}
	}
	stored := func() string {
		t.Helper()
		code, out, errs := runUB(t, "--db", db, "sql", "--format", "csv", `SELECT simulation_id, criterion_id, grader, verdict, turn_idx, reason,
			regexp_extract(source_file, '[ab][.]jsonl$') AS file, source_line FROM ep_verdicts ORDER BY ALL`)
		if code != 0 {
			t.Fatalf("sql: %s", errs)
		}
		return out
	}
	const head = "simulation_id,criterion_id,grader,verdict,turn_idx,reason,file,source_line\n"
	fromA := head + `c1,a-1-c1,g,pass,,,a.jsonl,1
c1,a-1-c2,g,pass,,,a.jsonl,2
c2,a-2-c1,g,na,,first,a.jsonl,5
d1,a-1-c1,g,fail,1,,a.jsonl,3
d1,a-1-c1,h,na,,,a.jsonl,4
`
	imp(a, 5)
	imp(a, 5)
	if got := stored(); got != fromA {
		t.Fatalf("after importing a.jsonl twice:\n%s\nwant:\n%s", got, fromA)
	}
	imp(b, 3)
	if got, want := stored(), head+`c1,a-1-c1,g,pass,,,a.jsonl,1
c1,a-1-c2,g,fail,3,,b.jsonl,1
c2,a-2-c1,g,na,,first,a.jsonl,5
d1,a-1-c1,g,pass,,,b.jsonl,3
d1,a-1-c1,h,na,,,a.jsonl,4
d2,a-2-c2,g,pass,,,b.jsonl,2
`; got != want {
		t.Fatalf("after b.jsonl:\n%s\nwant:\n%s", got, want)
	}
	imp(a, 5)
	if got, want := stored(), fromA+"d2,a-2-c2,g,pass,,,b.jsonl,2\n"; got != want {
		t.Fatalf("after a.jsonl again:\n%s\nwant:\n%s", got, want)
	}
}

// TestVerdictsImportHeapFlat guards the import's memory: the Go heap it
// takes for a file of ten graders' verdicts (156k lines) is within 1.2x
// (plus 4 MiB of slack for the runtime's own rounding) of what it takes
// for one grader's (15.6k), on the same workspace. The lines are staged
// in DuckDB (bounded by memory_limit) as they are read; an import that
// kept every verdict, or a map of them, in Go would take ten times the
// heap. Not parallel: it measures the process's heap.
func TestVerdictsImportHeapFlat(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	if code, _, errs := runUB(t, "--db", db, "synth", "--study", "fidelity"); code != 0 {
		t.Fatalf("synth: %s", errs)
	}
	// Each fail names the episode's first user turn, so that every line is
	// accepted whatever turn the synthetic verdict gives.
	export := func(graders int) string {
		path := filepath.Join(dir, fmt.Sprintf("v%d.jsonl", graders))
		query := fmt.Sprintf(`SELECT v.simulation_id, v.criterion_id, v.verdict, 'g' || g.i AS grader,
			CASE WHEN v.verdict = 'fail' THEN (SELECT min(m.turn_idx) FROM ep_messages m WHERE m.simulation_id = v.simulation_id AND m.role = 'user') END AS turn_idx
			FROM ep_verdicts v, range(%d) g(i) ORDER BY g.i, v.simulation_id, v.criterion_id`, graders)
		if code, _, errs := runUB(t, "--db", db, "export", "--out", path, "--query", query); code != 0 {
			t.Fatalf("export: %s", errs)
		}
		return path
	}
	one, ten := export(1), export(10)
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	peak := func(file string) uint64 {
		t.Helper()
		ws := filepath.Join(dir, "w-"+filepath.Base(file)+".duckdb")
		os.WriteFile(ws, raw, 0o644)
		var code int
		var out, errs string
		p := peakHeapDuring(func() { code, out, errs = runUB(t, "--db", ws, "verdicts", "import", file) })
		if code != 0 || !strings.Contains(out, "0 refused") {
			t.Fatalf("verdicts import %s: %d\n%s\n%s", file, code, out, errs)
		}
		return p
	}
	p1, p10 := peak(one), peak(ten)
	t.Logf("heap peak over the import: %.1f MiB for 1 grader, %.1f MiB for 10", float64(p1)/(1<<20), float64(p10)/(1<<20))
	if float64(p10) > 1.2*float64(p1)+4<<20 {
		t.Errorf("heap of the import grows with the file: %.1f MiB for 10x the lines vs %.1f MiB", float64(p10)/(1<<20), float64(p1)/(1<<20))
	}
}

// peakHeapDuring runs fn and returns the largest increase of the Go heap's
// live objects over the start, sampled every millisecond.
func peakHeapDuring(fn func()) uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(s); return s[0].Value.Uint64() }
	base := read()
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				if v := read(); v > base {
					mu.Lock()
					peak = max(peak, v-base)
					mu.Unlock()
				}
			}
		}
	}()
	fn()
	close(done)
	mu.Lock()
	defer mu.Unlock()
	return peak
}
