package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// TestStepsOnAnEmptyWorkspace: with no episode, batch or decision, the
// steps say what is missing (ErrNoData); a bad interval is ErrInvalid and
// is refused before the workspace is read.
func TestStepsOnAnEmptyWorkspace(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_, _, err = CreateBatch(ctx, ws, BatchOptions{N: 5, Seed: 1})
	if !errors.Is(err, ErrNoData) || err.Error() != "review sample: the workspace has no episodes: ingest tau2 result files first" {
		t.Errorf("CreateBatch: %v", err)
	}
	if _, err := PickBatch(ctx, ws.Conn(), ""); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "run ub review sample first") {
		t.Errorf("PickBatch: %v", err)
	}
	if _, err := Stats(ctx, ws.Conn(), StatsOptions{}); !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), "no review decision yet") {
		t.Errorf("Stats: %v", err)
	}
	if _, err := Stats(ctx, ws.Conn(), StatsOptions{Interval: "bogus"}); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrNoData) {
		t.Errorf("Stats, bad interval: %v", err)
	}
	if st, err := ReportStats(ctx, ws.Conn()); st != nil || err != nil {
		t.Errorf("ReportStats: %v, %v; want nothing to report", st, err)
	}
	var b strings.Builder
	if err := WriteDecisions(ctx, ws.Conn(), &b); err != nil || b.Len() != 0 {
		t.Errorf("WriteDecisions: %q, %v", b.String(), err)
	}
}

// TestWriteRerun: one "domain TAB task" line per rerun key, in order.
func TestWriteRerun(t *testing.T) {
	var b strings.Builder
	if err := WriteRerun(&b, analysis.ReviewStats{Rerun: []string{"airline/12", "telecom/[mobile]_3"}}); err != nil {
		t.Fatal(err)
	}
	if want := "airline\t12\ntelecom\t[mobile]_3\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestParseFile: the format comes from the extension unless given, the
// reviewer from the file's name unless given; CSV bad rows are returned,
// a broken tau2 file is ErrBadInput, an unknown format ErrInvalid.
func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("h1.csv", "simulation_id,has_error,code,severity,turn_idx\na,yes,hallucination,critical_helped,3\nb,no,,,\n")
	f, err := ParseFile(good, FileOptions{At: importTime})
	if err != nil || f.Reviewer != "csv:h1" || len(f.Decisions) != 2 || f.Stats.Errors != 1 || len(f.BadRows) != 0 {
		t.Errorf("csv: %+v, %v", f, err)
	}
	if f, err := ParseFile(good, FileOptions{Reviewer: "ann", At: importTime}); err != nil || f.Reviewer != "ann" || len(f.Decisions) != 2 || f.Decisions[0].Reviewer != "ann" {
		t.Errorf("csv, named reviewer: %+v, %v", f, err)
	}
	badCSV := write("h2.csv", "simulation_id,has_error,code,severity,turn_idx\na,yes,hallucination,critical_helped,3\nc,maybe,,,\n")
	if f, err := ParseFile(badCSV, FileOptions{At: importTime}); err != nil || len(f.BadRows) != 1 || !strings.HasPrefix(f.BadRows[0].Error(), badCSV+":3: has_error") {
		t.Errorf("csv, bad row: %+v, %v", f, err)
	}
	bad := write("run.json", "{not json")
	if _, err := ParseFile(bad, FileOptions{}); !errors.Is(err, ErrBadInput) || !strings.HasPrefix(err.Error(), "review import: ") {
		t.Errorf("tau2: %v", err)
	}
	txt := write("labels.txt", "")
	if _, err := ParseFile(txt, FileOptions{}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "say --format tau2, csv or label-studio") {
		t.Errorf("by name: %v", err)
	}
	if _, err := ParseFile(txt, FileOptions{Format: "xml"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `--format "xml"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestNinetyCallsUseTheFilesFields: the 90-call table's episodes are not in
// the workspace, but the file has reward and task_id: the cross tab and the
// policies use them. By hand (cut -d, -f8,9): every call has reward 0; 86
// decided (4 unresolved), one user (simulator) error, on
// intake_emails_easy_06. So the cross tab is agent failure 85 without and 1
// with a simulator error, the drop policy 0/85, alongside 0/86, and the
// re-run list that one task (its domain not known).
func TestNinetyCallsUseTheFilesFields(t *testing.T) {
	corpus := os.Getenv("UB_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	path := filepath.Join(corpus, "tau2", "annotations", "tau_elicit_human_failure_validation_90_calls.csv")
	f, err := ParseFile(path, FileOptions{At: importTime})
	if err != nil || len(f.BadRows) > 0 {
		t.Fatalf("%v %v", err, f.BadRows)
	}
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := queries.ReplaceReviewer(ctx, ws, f.Reviewer, f.Decisions); err != nil {
		t.Fatal(err)
	}
	st, err := Stats(ctx, ws.Conn(), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.WithReward != 86 || st.CrossTab.Counts != [2][2]int{{0, 0}, {85, 1}} {
		t.Errorf("with reward %d, cross tab %v; want 86, [[0 0] [85 1]]", st.WithReward, st.CrossTab.Counts)
	}
	if st.Drop.Episodes != 85 || st.Drop.Pass.K != 0 || st.Alongside.Episodes != 86 || st.Alongside.Pass.K != 0 {
		t.Errorf("drop %+v, alongside %+v; want 0/85 and 0/86", st.Drop, st.Alongside)
	}
	if want := []string{analysis.NotInWorkspace + "/intake_emails_easy_06"}; strings.Join(st.Rerun, ",") != want[0] || st.RerunUnknown != 0 {
		t.Errorf("rerun %v (+%d unknown), want %v", st.Rerun, st.RerunUnknown, want)
	}
	// The file's fields are the decision's, kept apart from the episodes:
	// the export shows them.
	var b strings.Builder
	if err := WriteDecisions(ctx, ws.Conn(), &b); err != nil || !strings.Contains(b.String(), `"task_id":"intake_emails_easy_06"`) {
		t.Errorf("export: %v, the file's task_id missing", err)
	}
}
