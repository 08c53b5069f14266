package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var importTime = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func TestParseLabelsCSVNinetyCalls(t *testing.T) {
	corpus := os.Getenv("UB_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	path := filepath.Join(corpus, "tau2", "annotations", "tau_elicit_human_failure_validation_90_calls.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the 90-call table (../shared/corpus beside the repository, or UB_CORPUS): %v", err)
	}
	defer f.Close()
	ds, st, errs := ParseLabelsCSV(path, f, "tau-elicit", importTime)
	if errs != nil {
		t.Fatal(errs)
	}
	// The table: 81 agent, 4 system, 1 user, 4 unresolved (counted by hand
	// with cut -d, -f9 | sort | uniq -c).
	if st.Decisions != 86 || st.Skipped != 4 || st.Errors != 1 || len(ds) != 86 {
		t.Fatalf("stats %+v (%d decisions), want 86 decisions, 4 skipped, 1 error", st, len(ds))
	}
	var users []string
	for _, d := range ds {
		if d.Outcome == "error" {
			users = append(users, d.SimulationID+" "+d.Errors[0].Code+" "+d.Errors[0].Severity)
		}
	}
	if len(users) != 1 || !strings.HasSuffix(users[0], " other critical_hindered") {
		t.Errorf("simulator errors %v", users)
	}
}

func TestParseLabelsCSVBadRows(t *testing.T) {
	in := "simulation_id,has_error,code,severity,turn_idx\n" +
		"a,yes,hallucination,critical_helped,3\n" +
		"b,maybe,,,\n" +
		"c,yes,not_a_code,minor,\n" +
		"a,no,,,\n" +
		"d,yes,other,fatal,\n" +
		"e,yes,other,minor,-2\n" +
		"f,no,,,\n"
	_, _, errs := ParseLabelsCSV("labels.csv", strings.NewReader(in), "h", importTime)
	want := []string{"labels.csv:3: has_error", "labels.csv:4: code", "labels.csv:5: simulation a repeats line 2", "labels.csv:6: severity", "labels.csv:7: turn_idx"}
	if len(errs) != len(want) {
		t.Fatalf("errors %v, want %d", errs, len(want))
	}
	for i, e := range errs {
		if !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d: %q, want prefix %q", i, e, want[i])
		}
	}
}

func TestParseUserOnlyReviews(t *testing.T) {
	in := `{"info": {}, "simulations": [
	 {"id": "s1", "user_only_review": {"user_error": false, "critical_user_error": false, "errors": []}},
	 {"id": "s2", "user_only_review": {"user_error": true, "critical_user_error": true,
	   "errors": [{"turn_idx": 4, "error_tags": ["revealed_info_early", "made_up_tag"], "severity": "critical_hindered", "reasoning": "gave the id"}]}},
	 {"id": "s3", "user_only_review": {"user_error": false, "errors": [{"turn_idx": -1, "error_tags": [], "severity": "minor", "reasoning": "Failed to parse review"}]}},
	 {"id": "s4"},
	 {"id": "s5", "user_only_review": "garbage"},
	 {"id": "s6", "user_only_review": {"user_error": true, "errors": [{"turn_idx": 2, "error_tags": ["hallucination"], "severity": "critical"}]}}
	]}`
	ds, st, err := ParseUserOnlyReviews("run.json", strings.NewReader(in), "llm:gpt-4.1", importTime)
	if err != nil {
		t.Fatal(err)
	}
	if st.Decisions != 3 || st.Failed != 2 || st.Skipped != 1 || st.Errors != 3 {
		t.Fatalf("stats %+v, want 3 decisions (s1 s2 s6), 2 failed (s3 s5), 1 skipped (s4), 3 errors", st)
	}
	got := map[string]string{}
	for _, d := range ds {
		s := d.Outcome
		for _, e := range d.Errors {
			s += " " + e.Code + "@" + strings.TrimSpace(e.Severity) + "/" + itoa(int(e.TurnIdx.Int64))
		}
		got[d.SimulationID] = s
	}
	want := map[string]string{
		"s1": "no_error",
		"s2": "error revealed_info_early@critical_hindered/4 other@critical_hindered/4",
		"s3": "failed",
		"s5": "failed",
		"s6": "error hallucination@critical_hindered/2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if _, _, err := ParseUserOnlyReviews("x.json", strings.NewReader(`[1,2]`), "llm", importTime); err == nil || !strings.HasPrefix(err.Error(), "x.json: ") {
		t.Errorf("not a results file: %v", err)
	}
}
