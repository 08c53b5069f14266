package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"

	"github.com/ub-bench/ub/analysis/probes"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// probeGoldenFiles are corpus/tau2 files whose findings cover every probe:
// P0 (airline toolorchestra), P1/P1a (gpt-oss-120b), P2, P3, P5 and P6
// (telecom gpt-4.1 and gpt-4o), and the tau-bench v1 format (tau_trait).
var probeGoldenFiles = []string{
	"results/airline__agent-toolorchestra__user-gpt-4.1__50tasks.json",
	"results/airline__agent-gpt-oss-120b__user-gpt-oss-120b__50tasks.json",
	"results/telecom__agent-gpt-4.1__user-gpt-4.1__40tasks.json",
	"results/telecom__agent-gpt-4.1-mini__user-gpt-4.1-mini__1task.json",
	"results/telecom__agent-gpt-4o__user-gpt-4o__20tasks.json",
	"tau_trait/telecom__agent-gpt-5__user-trait-confusion.json",
	"tau_trait/telehealth__agent-gpt-5__user-trait-skeptical.json",
}

// probeTables dumps the stored probe results, ordered: one line per finding
// (simulation id, probe, turn, and a hash of the evidence and of the detail,
// so that no corpus text is copied) and one line per episode with the
// probes that apply to it.
func probeTables(t *testing.T, ws *queries.Workspace) string {
	t.Helper()
	h := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return hex.EncodeToString(sum[:8])
	}
	var b strings.Builder
	fs, err := queries.Findings(context.Background(), ws.Conn(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		turn, detail := "-", "-"
		if f.TurnIdx != nil {
			turn = fmt.Sprint(*f.TurnIdx)
		}
		if f.Detail != nil {
			detail = h(*f.Detail)
		}
		fmt.Fprintf(&b, "finding %s %s %s %s %s\n", f.SimulationID, f.Probe, turn, h(f.Evidence), detail)
	}
	rows, err := ws.Conn().QueryContext(context.Background(), `SELECT e.simulation_id, coalesce(string_agg(a.probe, ' ' ORDER BY a.probe), '')
		FROM ep_episodes e LEFT JOIN ep_probe_applicable a USING (simulation_id) GROUP BY 1 ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sim, probes string
		if err := rows.Scan(&sim, &probes); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "applies %s %s\n", sim, probes)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	n := count(t, ws, `SELECT count(*) FROM (SELECT simulation_id, probe FROM ep_probe_applicable GROUP BY ALL HAVING count(*) > 1)`)
	fmt.Fprintf(&b, "applicable rows stored twice: %d\n", n)
	return b.String()
}

// TestProbeFindingsGolden ingests a few corpus/tau2 files and compares the
// whole probe_findings and applicability tables with what ingest stored
// before the probes moved from the stored messages to the parsed episodes
// (testdata/tau2probes/findings.golden; -update rewrites it). A second
// ingest of the same files changes nothing, and recomputing every probe
// from the stored episodes (RunProbes, what `ub probes` does) gives the same
// tables.
func TestProbeFindingsGolden(t *testing.T) {
	root := corpusDir(t, "tau2")
	var paths []string
	for _, f := range probeGoldenFiles {
		paths = append(paths, filepath.Join(root, f))
	}
	ws := memWorkspace(t)
	ctx := context.Background()
	if _, err := Run(ctx, ws, paths, Options{NewProber: testProber}); err != nil {
		t.Fatal(err)
	}
	// Paths in the workspace are as given; the golden names no path.
	got := probeTables(t, ws)
	golden := filepath.Join("testdata", "tau2probes", "findings.golden")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("probe tables differ from %s:\n%s", golden, firstDiff(got, string(want)))
	}
	if _, err := Run(ctx, ws, paths, Options{NewProber: testProber}); err != nil {
		t.Fatal(err)
	}
	if again := probeTables(t, ws); again != got {
		t.Errorf("second ingest changed the probe tables:\n%s", firstDiff(again, got))
	}
	if _, err := probes.RunStored(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if re := probeTables(t, ws); re != got {
		t.Errorf("RunProbes over the stored episodes differs from ingest's:\n%s", firstDiff(re, got))
	}
	// RunProbes writes only what differs from the stored results: stored
	// results spoiled every way (findings lost, changed, duplicated, made
	// up; applicability lost and made up) come back as the probes give them.
	for _, spoil := range []string{
		`DELETE FROM ep_probe_findings WHERE hash(simulation_id, probe, evidence) % 3 = 0`,
		`UPDATE ep_probe_findings SET evidence = evidence || ' (edited)' WHERE hash(simulation_id, evidence) % 5 = 0`,
		`INSERT INTO ep_probe_findings SELECT * FROM ep_probe_findings WHERE hash(simulation_id) % 7 = 0`,
		`INSERT INTO ep_probe_findings VALUES ('no-such-episode', 'P1', 1, 'made up', NULL)`,
		`DELETE FROM ep_probe_applicable WHERE hash(simulation_id, probe) % 4 = 0`,
		`INSERT INTO ep_probe_applicable VALUES ('no-such-episode', 'P2')`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, spoil); err != nil {
			t.Fatalf("%s: %v", spoil, err)
		}
	}
	if spoiled := probeTables(t, ws); spoiled == got {
		t.Fatal("the spoiling changed nothing")
	}
	if _, err := probes.RunStored(ctx, ws); err != nil {
		t.Fatal(err)
	}
	if re := probeTables(t, ws); re != got {
		t.Errorf("RunProbes over spoiled results:\n%s", firstDiff(re, got))
	}
	var madeUp int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM ep_probe_findings WHERE simulation_id = 'no-such-episode')
		+ (SELECT count(*) FROM ep_probe_applicable WHERE simulation_id = 'no-such-episode')`).Scan(&madeUp); err != nil || madeUp != 0 {
		t.Errorf("%d made-up rows left after RunProbes (%v)", madeUp, err)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n got  %q\n want %q\n(%d lines, want %d)", i+1, a, b, len(g), len(w))
		}
	}
	return ""
}

// TestProbesOfReplacedEpisode: an episode stored with other content is
// replaced with its probe results: after ingesting a file and then a changed
// copy of it, the probe tables are those of a fresh workspace that read only
// the copy, and those RunProbes derives from the stored episodes. In the
// copy, s1's user no longer names its user id (P1 and P1a go) and s4's user
// asks to stop on a confirmation (P4 comes).
func TestProbesOfReplacedEpisode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "airline__agent-x__user-y.json")
	changed := strings.Replace(tau2Small, `"content": "I am mia_li_3668"`, `"content": "I need help"`, 1)
	changed = strings.Replace(changed, `[{"role": "user", "content": "hello", "is_audio": false}]`,
		`[{"role": "assistant", "content": "Shall I cancel it? Please confirm (yes/no)."}, {"role": "user", "content": "Yes, please proceed. ###STOP###"}]`, 1)
	if changed == tau2Small {
		t.Fatal("the copy does not differ")
	}
	ingestText := func(ws *queries.Workspace, text string) Stats {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		st, _ := Run(context.Background(), ws, []string{p}, Options{NewProber: testProber})
		return st
	}
	ws := memWorkspace(t)
	ingestText(ws, tau2Small)
	first := probeTables(t, ws)
	st := ingestText(ws, changed)
	if st.EpisodesReplaced != 2 {
		t.Fatalf("%d episodes replaced, want 2", st.EpisodesReplaced)
	}
	got := probeTables(t, ws)
	if got == first {
		t.Fatalf("the probe tables did not change:\n%s", got)
	}
	fresh := memWorkspace(t)
	ingestText(fresh, changed)
	if want := probeTables(t, fresh); got != want {
		t.Errorf("after the replacement:\n%s\nfresh ingest of the copy:\n%s", got, want)
	}
	if _, err := probes.RunStored(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	if re := probeTables(t, ws); re != got {
		t.Errorf("RunProbes gives\n%s\ningest stored\n%s", re, got)
	}
	if !strings.Contains(first, "finding s1 P1 ") || strings.Contains(got, "finding s1 P1") || !strings.Contains(got, "finding s4 P4 1 ") {
		t.Errorf("want s1's P1 finding gone and s4's P4 at turn 1 come; before:\n%s\nafter:\n%s", first, got)
	}
}

// TestReplacedInOneBatch: a file and a changed copy of it (another name,
// the same simulation ids) ingested in one run share a batch and its
// writer; the copy's episodes replace the file's, so the delete must see
// the rows the batch wrote for the file: the messages and probe tables are
// those of a fresh workspace that read only the copy.
func TestReplacedInOneBatch(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "airline__agent-x__user-y.json")
	p2 := filepath.Join(dir, "airline__agent-x__user-y-copy.json")
	changed := strings.Replace(tau2Small, `"content": "I am mia_li_3668"`, `"content": "I need help"`, 1)
	changed = strings.Replace(changed, `[{"role": "user", "content": "hello", "is_audio": false}]`,
		`[{"role": "assistant", "content": "Shall I cancel it? Please confirm (yes/no)."}, {"role": "user", "content": "Yes, please proceed. ###STOP###"}]`, 1)
	if err := os.WriteFile(p1, []byte(tau2Small), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p2, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	messages := func(ws *queries.Workspace) string {
		rows, err := ws.Conn().QueryContext(context.Background(), `SELECT simulation_id, count(*), string_agg(coalesce(content, ''), '|' ORDER BY idx)
			FROM ep_messages GROUP BY 1 ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var sim, text string
			var n int
			if err := rows.Scan(&sim, &n, &text); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %d %q\n", sim, n, text)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	ws := memWorkspace(t)
	// tau2Small holds two bad simulations; the others land.
	st, _ := Run(context.Background(), ws, []string{p1, p2}, Options{NewProber: testProber})
	if st.EpisodesReplaced != 2 {
		t.Fatalf("%d episodes replaced, want 2", st.EpisodesReplaced)
	}
	fresh := memWorkspace(t)
	Run(context.Background(), fresh, []string{p2}, Options{NewProber: testProber})
	if got, want := messages(ws), messages(fresh); got != want {
		t.Errorf("messages after the replacement:\n%s\nfresh ingest of the copy:\n%s", got, want)
	}
	if got, want := probeTables(t, ws), probeTables(t, fresh); got != want {
		t.Errorf("probe tables after the replacement:\n%s\nfresh ingest of the copy:\n%s", got, want)
	}
}

// TestRunProbesLeavesGOGC: the library does not change the process's
// garbage collector (ub probes sets ProbeGCPercent for its own process): a
// program calling RunProbes keeps its GOGC while it runs.
func TestRunProbesLeavesGOGC(t *testing.T) {
	ws := memWorkspace(t)
	p := filepath.Join(t.TempDir(), "airline__agent-x__user-y.json")
	if err := os.WriteFile(p, []byte(tau2Small), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := Run(context.Background(), ws, []string{p}, Options{NewProber: testProber}); st.Episodes == 0 {
		t.Fatal("no episode ingested")
	}
	gogc := func() int64 {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		return int64(s[0].Value.Uint64())
	}
	before := gogc()
	stop, seen := make(chan struct{}), make(chan int64, 1)
	go func() {
		other := before
		for {
			select {
			case <-stop:
				seen <- other
				return
			default:
				if g := gogc(); g != before {
					other = g
				}
			}
		}
	}()
	for i := 0; i < 20; i++ {
		if _, err := probes.RunStored(context.Background(), ws); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if g := <-seen; g != before {
		t.Errorf("GOGC was %d while RunProbes ran, %d before", g, before)
	}
}

// TestProbeRowsOncePerKey: the probe tables have no key (0020), so each
// writer keeps one row per (episode, probe) itself. After an ingest, the
// same file again, a changed copy and the file in one run (the copy's
// episodes replaced twice within the run), ub probes, ub probes again,
// and ub probes over applicability rows stored twice and findings stored
// twice, every (episode, probe) is stored once and the tables are those
// of a fresh workspace that read only the file.
func TestProbeRowsOncePerKey(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "airline__agent-x__user-y.json")
	p2 := filepath.Join(dir, "airline__agent-x__user-y-copy.json")
	changed := strings.Replace(tau2Small, `"content": "I am mia_li_3668"`, `"content": "I need help"`, 1)
	if changed == tau2Small {
		t.Fatal("the copy does not differ")
	}
	if err := os.WriteFile(p1, []byte(tau2Small), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p2, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// tau2Small holds two bad simulations (Run's error); the others land.
	fresh := memWorkspace(t)
	Run(ctx, fresh, []string{p1}, Options{NewProber: testProber})
	want := probeTables(t, fresh)
	if !strings.Contains(want, "applies s1 ") || !strings.HasSuffix(want, "applicable rows stored twice: 0\n") {
		t.Fatalf("the fresh workspace's probe tables:\n%s", want)
	}
	ws := memWorkspace(t)
	check := func(step string) {
		t.Helper()
		if got := probeTables(t, ws); got != want {
			t.Errorf("after %s:\n%s", step, firstDiff(got, want))
		}
		if n := count(t, ws, `SELECT count(*) FROM (SELECT simulation_id, probe FROM ep_probe_applicable GROUP BY ALL HAVING count(*) > 1)`); n != 0 {
			t.Errorf("after %s: %d (episode, probe) stored twice", step, n)
		}
	}
	for i, paths := range [][]string{{p1}, {p1}, {p2, p1}} {
		Run(ctx, ws, paths, Options{NewProber: testProber})
		check(fmt.Sprintf("ingest %d", i+1))
	}
	for i := range 2 {
		if _, err := probes.RunStored(ctx, ws); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("probes %d", i+1))
	}
	for _, twice := range []string{
		`INSERT INTO ep_probe_applicable SELECT * FROM ep_probe_applicable`,
		`INSERT INTO ep_probe_findings SELECT * FROM ep_probe_findings`,
	} {
		if _, err := ws.Conn().ExecContext(ctx, twice); err != nil {
			t.Fatalf("%s: %v", twice, err)
		}
	}
	if got := probeTables(t, ws); got == want {
		t.Fatal("storing the rows twice changed nothing")
	}
	if _, err := probes.RunStored(ctx, ws); err != nil {
		t.Fatal(err)
	}
	check("probes over rows stored twice")
}
